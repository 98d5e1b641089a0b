#pragma once
// The theta-method two-stage time step (math.md section 1). Filled in by the next commit.
