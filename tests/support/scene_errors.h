#pragma once
// Helpers of the scene-rejection tests (tests/io/scene_loader_test.cc, model_builder_test.cc):
// load a scene text that must fail and check where and why.

#include <string>

#include "engine/common/input_error.h"

namespace csim::test {

/// Loads `text` as "test.yaml" and returns the InputError it must raise (fails the test,
/// and throws, if the scene is accepted).
InputError LoadError(const std::string& text);

/// Checks that `text` is rejected at line:col (1-based) of "test.yaml" with a message
/// containing `what`; on failure the offending line is shown with a caret under col.
void CheckRejected(const std::string& text, int line, int col, const std::string& what);

/// "test.yaml:LINE:COL" of the first occurrence of `marker` in `text` (fails the test if
/// there is none), as located messages start.
std::string LocationOf(const std::string& text, const std::string& marker);

/// Checks that `text` is rejected at the first occurrence of `marker` in it with a message
/// containing `what`: the marker says in the scene itself which node is at fault.
void CheckRejectedAt(const std::string& text, const std::string& marker, const std::string& what);

/// A one-body scene whose body entry is `body` (indented 4 spaces, starting on line 4).
std::string OneBody(const std::string& body);

}  // namespace csim::test
