#pragma once
// What the replay page of `csim export-html` shows, read from an output file
// (output-format.md): body names, geometry (/model/geometry), and a decimated subset of the
// recorded rows with body poses and contacts.
//
// Decimation: the page must stay small enough for a browser to open quickly, so at most
// `max_frames` rows are kept, evenly spaced in row index (the first and last row always),
// and fewer when the pose and contact data of that many frames would exceed
// `max_data_bytes`. Rows are read with strided HDF5 hyperslabs, so a long run is not
// loaded whole. A frame keeps at most `max_contacts_per_frame` contacts (the first ones
// of its row); the page says when contacts were dropped.
//
// Links: a joint's parent and frame and a constraint's bodies and points come from /model
// (joint_parent, joint_position, constraint_body_a|b, constraint_point_a|b). Files written
// before /model held them get them by loading the scene the file carries (/scene/yaml,
// overrides already applied) again, with /scene_file locating its mesh files; when that
// scene no longer loads (a mesh file moved), the page lists joints and constraints by name
// and draws no links, and `links_note` says why.
// Actuator efforts are taken at the frames' rows; a frame is marked saturated when any row
// since the previous frame was, so that decimation never hides a saturation.
// Visual meshes that /model/geometry keeps as file references (output-format.md) are read
// from their files here, relative to the folder of the file's scene_file, as the run found
// them, into `geometry` (each file once); one that cannot be read is left without vertices
// (the page does not draw it), and `visual_note` names it.
// Hydroelastic contact surfaces (/hydroelastic): every surface of a frame's row, with its
// polygons when the file holds them (output.contact_surfaces); a polygon is one contact,
// so a frame keeps at most `max_contacts_per_frame` polygons (the first ones of its row).

#include <cstdint>
#include <string>
#include <vector>

#include "engine/io/hdf5_geometry.h"

namespace csim::app {

/// Limits of what a page holds. Defaults are those of `csim export-html --help`.
struct ReplayBudget {
  int64_t max_frames = 600;                ///< frames kept at most (>= 2)
  int64_t max_data_bytes = 4'000'000;      ///< estimated size of the frame data [bytes]
  int64_t max_contacts_per_frame = 256;    ///< contacts drawn per frame at most
};

/// The decimated run. Per-frame arrays are flat, frame-major.
struct ReplayData {
  std::string scene_name;
  std::string status;                      ///< /status of the file
  double time_step = 0.0;                  ///< [s]
  int64_t recorded_rows = 0;               ///< rows in the file (len(/time))
  std::vector<std::string> body_names;     ///< nb
  io::GeometryTable geometry;              ///< /model/geometry (empty for older files),
                                           ///< with the referenced mesh files' vertices
  std::string visual_note;                 ///< mesh files that could not be read, and why

  std::vector<int64_t> rows;               ///< F: row of the file shown by each frame
  std::vector<double> time;                ///< F [s]
  std::vector<double> position;            ///< F * nb * 3 [m], world frame
  std::vector<double> quaternion;          ///< F * nb * 4, w, x, y, z
  bool has_contacts = false;               ///< the file has /contacts
  std::vector<int64_t> contact_offset;     ///< F: first contact of the frame below
  std::vector<int32_t> contact_count;      ///< F: contacts kept for the frame
  std::vector<int32_t> contact_total;      ///< F: contacts of the row in the file
  std::vector<double> contact_point;       ///< C * 3 [m], world frame
  std::vector<double> contact_force;       ///< C * 3 [N], force on b, world frame
  bool has_surfaces = false;               ///< the file has /hydroelastic
  std::vector<int64_t> surface_offset;     ///< F: first surface of the frame below
  std::vector<int32_t> surface_count;      ///< F: surfaces of the frame's row
  std::vector<double> surface_centroid;    ///< S * 3 [m], area centroid, world frame
  std::vector<double> surface_force;       ///< S * 3 [N], total force on b, world frame
  std::vector<double> surface_moment;      ///< S * 3 [N m], on b about the centroid
  bool has_polygons = false;               ///< the file has the surfaces' polygons
  std::vector<int64_t> polygon_offset;     ///< F: first polygon of the frame below
  std::vector<int32_t> polygon_count;      ///< F: polygons kept for the frame
  std::vector<int32_t> polygon_total;      ///< F: polygons of the row in the file
  std::vector<int32_t> polygon_vertex_count;  ///< P: vertices of each kept polygon, in order
  std::vector<double> vertex_position;     ///< V * 3 [m], world frame, polygon by polygon
  std::vector<double> vertex_pressure;     ///< V [Pa]

  // Joints (/model/joint_*): joint j is the inboard joint of body j.
  std::vector<std::string> joint_names, joint_types;  ///< nj
  bool has_links = false;                  ///< the scene reloaded: the link fields below hold
  std::string links_note;                  ///< why there are no links ("" when there are)
  std::vector<int32_t> joint_parent;       ///< nj: parent body, -1 the world
  std::vector<double> joint_position;      ///< nj * 3 [m]: joint frame origin in the parent
  // Holonomic constraints (/model/constraint_*). A ball, weld or distance constraint links
  // point P of body A to point Q of body B; a coupler links its `follows` body (A) to its
  // `joint` body (B), both at their origins.
  std::vector<std::string> constraint_names, constraint_types;  ///< nc
  std::vector<int32_t> constraint_body_a, constraint_body_b;    ///< nc, -1 the world
  std::vector<double> constraint_point_a;  ///< nc * 3 [m]: P in A's frame
  std::vector<double> constraint_point_b;  ///< nc * 3 [m]: Q in B's frame
  // Actuators (/model/actuator_*, /actuators/*).
  std::vector<std::string> actuator_names; ///< na
  std::vector<int32_t> actuator_joint;     ///< na: the joint (= body) each one drives
  std::vector<double> actuator_limit;      ///< na [N m or N], inf: none
  std::vector<double> actuator_effort;     ///< F * na [N m or N] at the frames' rows
  std::vector<int8_t> actuator_saturated;  ///< F * na: saturated at a row since the last frame

  int num_bodies() const { return static_cast<int>(body_names.size()); }
  int num_actuators() const { return static_cast<int>(actuator_names.size()); }
  int64_t num_frames() const { return static_cast<int64_t>(rows.size()); }
};

/// Reads `h5_path` (also while a run still writes it: SWMR read) and decimates it to
/// `budget`. Throws IoError when the file cannot be read or is not a csim output file.
ReplayData ReadReplay(const std::string& h5_path, const ReplayBudget& budget);

/// Rows shown for a run of `n` rows when at most `frames` (>= 2) are kept: 0, s, 2s, ...
/// with the smallest stride s that fits, and the last row n - 1 always.
std::vector<int64_t> DecimatedRows(int64_t n, int64_t frames);

}  // namespace csim::app
