#pragma once
// Recognising a csim output file (output-format.md), for the readers (`csim info`,
// `csim export-html`).

#include <initializer_list>

#include "engine/io/hdf5_file.h"

namespace csim::io {

/// Throws IoError ("'FILE' is not a csim output file") unless the root attribute `format`
/// is the string "csim" and /time and every path in `required` exist.
void RequireCsimFile(const Hdf5File& file, std::initializer_list<const char*> required = {});

}  // namespace csim::io
