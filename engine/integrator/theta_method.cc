#include "engine/integrator/theta_method.h"
