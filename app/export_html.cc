#include "app/export_html.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "app/exit_codes.h"
#include "app/html_assets.h"
#include "engine/common/input_error.h"
#include "engine/common/io_error.h"

namespace csim::app {
namespace {

/// Significant digits in the page: poses to 1e-6 relative (a micrometre on a metre),
/// forces and contact points coarser, as they are only drawn.
constexpr int kPoseDigits = 6;
constexpr int kContactDigits = 4;

/// Appends JSON to a string: numbers in the shortest general form, strings escaped so
/// that nothing in them can close the surrounding <script> element.
class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(*out) {}

  void Number(double value, int digits) {
    if (!std::isfinite(value)) {  // JSON has no NaN; a failed run keeps only good rows
      out_ += '0';
      return;
    }
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value,
                                      std::chars_format::general, digits);
    out_.append(buffer, result.ptr);
  }
  void Integer(int64_t value) { out_ += std::to_string(value); }

  void String(const std::string& text) {
    out_ += '"';
    for (unsigned char c : text) {
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
      } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out_ += escaped;
      } else {
        out_ += static_cast<char>(c);
      }
    }
    out_ += '"';
  }

  void Key(const char* name) {
    String(name);
    out_ += ':';
  }

  template <typename T>
  void Array(const std::vector<T>& values, int digits = kPoseDigits) {
    out_ += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out_ += ',';
      if constexpr (std::is_floating_point_v<T>) {
        Number(values[i], digits);
      } else {
        Integer(values[i]);
      }
    }
    out_ += ']';
  }

  void Strings(const std::vector<std::string>& values) {
    out_ += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out_ += ',';
      String(values[i]);
    }
    out_ += ']';
  }

  /// Flattens fixed-size Eigen vectors into one array.
  template <typename Vector>
  void Flat(const std::vector<Vector>& values, int digits = kPoseDigits) {
    std::vector<typename Vector::Scalar> flat;
    flat.reserve(values.size() * Vector::RowsAtCompileTime);
    for (const Vector& v : values) flat.insert(flat.end(), v.data(), v.data() + v.size());
    Array(flat, digits);
  }

  void Raw(std::string_view text) { out_ += text; }

 private:
  std::string& out_;
};

void WriteGeometry(const io::GeometryTable& g, JsonWriter& json) {
  json.Raw("{");
  json.Key("body"), json.Array(g.body), json.Raw(",");
  json.Key("shape"), json.Strings(g.shape), json.Raw(",");
  json.Key("size"), json.Flat(g.size), json.Raw(",");
  json.Key("position"), json.Flat(g.position), json.Raw(",");
  json.Key("quaternion"), json.Flat(g.quaternion), json.Raw(",");
  json.Key("collide"), json.Array(g.collide), json.Raw(",");
  json.Key("vertex_offset"), json.Array(g.vertex_offset), json.Raw(",");
  json.Key("vertex_count"), json.Array(g.vertex_count), json.Raw(",");
  json.Key("triangle_offset"), json.Array(g.triangle_offset), json.Raw(",");
  json.Key("triangle_count"), json.Array(g.triangle_count), json.Raw(",");
  json.Key("vertices"), json.Flat(g.vertices), json.Raw(",");
  json.Key("triangles"), json.Flat(g.triangles);
  json.Raw("}");
}

void WriteFrames(const ReplayData& d, JsonWriter& json) {
  json.Raw("{");
  json.Key("row"), json.Array(d.rows), json.Raw(",");
  json.Key("time"), json.Array(d.time, 10), json.Raw(",");
  json.Key("position"), json.Array(d.position, kPoseDigits), json.Raw(",");
  json.Key("quaternion"), json.Array(d.quaternion, kPoseDigits);
  json.Raw("}");
}

void WriteContacts(const ReplayData& d, JsonWriter& json) {
  if (!d.has_contacts) {
    json.Raw("null");
    return;
  }
  json.Raw("{");
  json.Key("offset"), json.Array(d.contact_offset), json.Raw(",");
  json.Key("count"), json.Array(d.contact_count), json.Raw(",");
  json.Key("total"), json.Array(d.contact_total), json.Raw(",");
  json.Key("point"), json.Array(d.contact_point, kPoseDigits), json.Raw(",");
  json.Key("force"), json.Array(d.contact_force, kContactDigits);
  json.Raw("}");
}

/// Hydroelastic contact surfaces (null without /hydroelastic): per frame the surfaces'
/// centroids, net forces and moments, and their polygons (null when not recorded) with
/// the pressure at each vertex.
void WriteSurfaces(const ReplayData& d, JsonWriter& json) {
  if (!d.has_surfaces) {
    json.Raw("null");
    return;
  }
  json.Raw("{");
  json.Key("offset"), json.Array(d.surface_offset), json.Raw(",");
  json.Key("count"), json.Array(d.surface_count), json.Raw(",");
  json.Key("centroid"), json.Array(d.surface_centroid, kPoseDigits), json.Raw(",");
  json.Key("force"), json.Array(d.surface_force, kContactDigits), json.Raw(",");
  json.Key("moment"), json.Array(d.surface_moment, kContactDigits), json.Raw(",");
  json.Key("polygons");
  if (d.has_polygons) {
    json.Raw("{");
    json.Key("offset"), json.Array(d.polygon_offset), json.Raw(",");
    json.Key("count"), json.Array(d.polygon_count), json.Raw(",");
    json.Key("total"), json.Array(d.polygon_total), json.Raw(",");
    json.Key("vertex_count"), json.Array(d.polygon_vertex_count), json.Raw(",");
    json.Key("vertex"), json.Array(d.vertex_position, kPoseDigits), json.Raw(",");
    json.Key("pressure"), json.Array(d.vertex_pressure, kContactDigits);
    json.Raw("}");
  } else {
    json.Raw("null");
  }
  json.Raw("}");
}

/// Joints (null without any): names and types; parent and frame origin when the links are
/// known (ReplayData::has_links), else null.
void WriteJoints(const ReplayData& d, JsonWriter& json) {
  if (d.joint_names.empty()) {
    json.Raw("null");
    return;
  }
  json.Raw("{");
  json.Key("name"), json.Strings(d.joint_names), json.Raw(",");
  json.Key("type"), json.Strings(d.joint_types), json.Raw(",");
  json.Key("parent");
  d.has_links ? json.Array(d.joint_parent) : json.Raw("null");
  json.Raw(",");
  json.Key("position");
  d.has_links ? json.Array(d.joint_position) : json.Raw("null");
  json.Raw("}");
}

/// Holonomic constraints (null without any), as WriteJoints.
void WriteConstraints(const ReplayData& d, JsonWriter& json) {
  if (d.constraint_names.empty()) {
    json.Raw("null");
    return;
  }
  json.Raw("{");
  json.Key("name"), json.Strings(d.constraint_names), json.Raw(",");
  json.Key("type"), json.Strings(d.constraint_types);
  if (d.has_links) {
    json.Raw(",");
    json.Key("body_a"), json.Array(d.constraint_body_a), json.Raw(",");
    json.Key("body_b"), json.Array(d.constraint_body_b), json.Raw(",");
    json.Key("point_a"), json.Array(d.constraint_point_a), json.Raw(",");
    json.Key("point_b"), json.Array(d.constraint_point_b);
  }
  json.Raw("}");
}

/// Actuators (null without any): effort series frame-major, limits null where none.
void WriteActuators(const ReplayData& d, JsonWriter& json) {
  if (d.actuator_names.empty()) {
    json.Raw("null");
    return;
  }
  json.Raw("{");
  json.Key("name"), json.Strings(d.actuator_names), json.Raw(",");
  json.Key("joint"), json.Array(d.actuator_joint), json.Raw(",");
  json.Key("limit"), json.Raw("[");
  for (size_t a = 0; a < d.actuator_limit.size(); ++a) {
    if (a > 0) json.Raw(",");
    std::isfinite(d.actuator_limit[a]) ? json.Number(d.actuator_limit[a], kPoseDigits)
                                       : json.Raw("null");
  }
  json.Raw("],");
  json.Key("effort"), json.Array(d.actuator_effort, kPoseDigits), json.Raw(",");
  std::vector<int32_t> saturated(d.actuator_saturated.begin(), d.actuator_saturated.end());
  json.Key("saturated"), json.Array(saturated);
  json.Raw("}");
}

/// The run as the JSON object viewer.js reads from #csim-data.
std::string RunJson(const ReplayData& d, const ReplayBudget& budget) {
  std::string text;
  JsonWriter json(&text);
  json.Raw("{");
  json.Key("scene"), json.String(d.scene_name), json.Raw(",");
  json.Key("status"), json.String(d.status), json.Raw(",");
  json.Key("time_step"), json.Number(d.time_step, 10), json.Raw(",");
  json.Key("recorded_rows"), json.Integer(d.recorded_rows), json.Raw(",");
  json.Key("max_contacts_per_frame"), json.Integer(budget.max_contacts_per_frame), json.Raw(",");
  json.Key("bodies"), json.Strings(d.body_names), json.Raw(",");
  json.Key("geometry"), WriteGeometry(d.geometry, json), json.Raw(",");
  json.Key("frames"), WriteFrames(d, json), json.Raw(",");
  json.Key("contacts"), WriteContacts(d, json), json.Raw(",");
  json.Key("surfaces"), WriteSurfaces(d, json), json.Raw(",");
  json.Key("joints"), WriteJoints(d, json), json.Raw(",");
  json.Key("constraints"), WriteConstraints(d, json), json.Raw(",");
  json.Key("links_note"), json.String(d.links_note), json.Raw(",");
  json.Key("visual_note"), json.String(d.visual_note), json.Raw(",");
  json.Key("actuators"), WriteActuators(d, json);
  json.Raw("}");
  return text;
}

/// Text for an HTML element body: &, < and > escaped.
std::string EscapeHtml(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

void WriteFile(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw IoError("cannot write '" + path + "': cannot create '" + temporary + "'");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw IoError("cannot write '" + path + "'");
    }
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw IoError("cannot write '" + path + "': " + error.message());
  }
}

/// Whether the bodies have both visual-only and collision geometry (viewer.js then lets
/// either be hidden).
bool HasVisualAndCollisionGeometry(const ReplayData& d) {
  bool visual = false, collision = false;
  for (int g = 0; g < d.geometry.count(); ++g) {
    if (d.geometry.body[g] < 0) continue;
    (d.geometry.collide[g] != 0 ? collision : visual) = true;
  }
  return visual && collision;
}

/// Whether the page draws links: the joints' parents are known and some joint other than a
/// free one, or some constraint, links bodies (viewer.js draws the same ones).
bool DrawsLinks(const ReplayData& d) {
  if (!d.has_links) return false;
  if (!d.constraint_names.empty()) return true;
  for (const std::string& type : d.joint_types)
    if (type != "free") return true;
  return false;
}

}  // namespace

std::string RenderReplayPage(const ReplayData& data, const ReplayBudget& budget) {
  const std::string title = "csim: " + (data.scene_name.empty() ? "run" : data.scene_name);
  std::string page;
  page.reserve(assets::ThreeJs().size() + 64 * 1024 + 12 * data.position.size());
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"generator\" content=\"csim export-html\">\n";
  page += "<title>" + EscapeHtml(title) + "</title>\n<style>\n";
  page += assets::ViewerCss();
  page += "</style>\n</head>\n<body>\n<div id=\"view\"></div>\n<div id=\"panel\">"
          "<button id=\"play\" type=\"button\">Play</button>"
          "<input id=\"slider\" type=\"range\" min=\"0\" max=\"0\" step=\"1\" value=\"0\" "
          "aria-label=\"frame\"><span id=\"time\">t = 0 s</span>"
          "<label><input id=\"paths\" type=\"checkbox\" checked> paths</label>";
  // Controls of the geometry kinds, the links and the effort plot, only for a model that
  // has them.
  if (HasVisualAndCollisionGeometry(data))
    page += "<label><input id=\"visual\" type=\"checkbox\" checked> visual</label>"
            "<label><input id=\"collision\" type=\"checkbox\" checked> collision</label>";
  if (DrawsLinks(data))
    page += "<label><input id=\"links\" type=\"checkbox\" checked> links</label>";
  if (!data.actuator_names.empty()) {
    page += "<label>effort <select id=\"actuator\" aria-label=\"actuator effort\">"
            "<option value=\"-1\">none</option>";
    for (int a = 0; a < data.num_actuators(); ++a)
      page += "<option value=\"" + std::to_string(a) + "\">" +
              EscapeHtml(data.actuator_names[a]) + "</option>";
    page += "</select></label>";
  }
  page += "<span id=\"frame-label\"></span><span id=\"info\"></span></div>\n";
  if (!data.actuator_names.empty())
    page += "<div id=\"effort\" hidden><canvas id=\"effort-plot\" width=\"360\" "
            "height=\"160\"></canvas><div id=\"effort-label\"></div></div>\n";
  page += "<div id=\"message\" hidden></div>\n<div id=\"csim-state\" hidden></div>\n";
  page += "<script type=\"application/json\" id=\"csim-data\">";
  page += RunJson(data, budget);
  page += "</script>\n";
  page += "<script>/* three.js r111, MIT License, Copyright 2010-2019 three.js authors "
          "(Debian libjs-three) */\n";
  page += assets::ThreeJs();
  page += "\n</script>\n<script>\n";
  page += assets::OrbitControlsJs();
  page += "\n</script>\n<script>\n";
  page += assets::ViewerJs();
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

std::string DefaultPagePath(const std::string& input) {
  const std::string h5 = ".h5";
  if (input.size() > h5.size() && input.compare(input.size() - h5.size(), h5.size(), h5) == 0)
    return input.substr(0, input.size() - h5.size()) + ".html";
  return input + ".html";
}

int ExportHtmlCommand(const ExportHtmlOptions& options, bool quiet) {
  const ReplayData data = ReadReplay(options.input, options.budget);
  const std::string output = options.output.empty() ? DefaultPagePath(options.input)
                                                    : options.output;
  std::error_code same_error;
  if (std::filesystem::equivalent(options.input, output, same_error)) {
    throw InputError({"--output", 0, 0}, "the page '" + output + "' would overwrite the run " +
                                            "it replays; choose another file");
  }
  const std::string page = RenderReplayPage(data, options.budget);
  WriteFile(output, page);
  if (!quiet) {
    std::fprintf(stderr, "csim: %s: %lld of %lld rows as frames, %d bodies, %zu geometries, "
                 "%.2f MB\n", output.c_str(), static_cast<long long>(data.num_frames()),
                 static_cast<long long>(data.recorded_rows), data.num_bodies(),
                 data.geometry.body.size(), static_cast<double>(page.size()) / 1e6);
  }
  return kExitCompleted;
}

}  // namespace csim::app
