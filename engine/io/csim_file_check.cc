#include "engine/io/csim_file_check.h"

#include "engine/common/io_error.h"

namespace csim::io {

void RequireCsimFile(const Hdf5File& file, std::initializer_list<const char*> required) {
  bool ok = false;
  if (file.HasAttribute("format")) {
    try {
      ok = file.GetStringAttribute("format") == "csim";
    } catch (const IoError&) {
      ok = false;  // a non-string attribute: not ours
    }
  }
  ok = ok && file.Exists("time");
  for (const char* path : required) ok = ok && file.Exists(path);
  if (!ok) throw IoError("'" + file.file_name() + "' is not a csim output file");
}

}  // namespace csim::io
