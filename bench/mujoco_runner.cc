#include "bench/mujoco_runner.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <mujoco/mujoco.h>

namespace csim::bench {
namespace {

// MuJoCo's default warning handler prints the warning and appends it to MUJOCO_LOG.TXT in
// the working directory (the source tree, for tools/run_rope_bench.sh). The benchmark
// notices warnings through mjData's counters (Step) and reports them itself, so the
// handler only prints.
void PrintWarning(const char* message) { std::fprintf(stderr, "MuJoCo warning: %s\n", message); }

}  // namespace

MujocoRunner::MujocoRunner(const std::string& mjcf) {
  mju_user_warning = PrintWarning;
  auto vfs = std::make_unique<mjVFS>();  // ~2 MB of file-name tables: not on the stack
  mj_defaultVFS(vfs.get());
  const char* name = "csim_bench.xml";
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(mjcf.size())) != 0)
    throw std::runtime_error("MuJoCo VFS: cannot create the model file");
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name)], mjcf.data(), mjcf.size());
  char error[1024] = "";
  m_ = mj_loadXML(name, vfs.get(), error, sizeof error);
  mj_deleteVFS(vfs.get());
  if (m_ == nullptr) throw std::runtime_error(std::string("MuJoCo: ") + error);
  d_ = mj_makeData(m_);
  if (d_ == nullptr) throw std::runtime_error("MuJoCo: mj_makeData failed");
}

MujocoRunner::~MujocoRunner() {
  if (d_ != nullptr) mj_deleteData(d_);
  if (m_ != nullptr) mj_deleteModel(m_);
}

bool MujocoRunner::Step(StepSample* sample, const Controls& controls) {
  const auto start = std::chrono::steady_clock::now();
  if (controls && m_->nu > 0) controls(d_->time, d_->ctrl);
  mj_step(m_, d_);
  sample->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sample->iterations = d_->solver_iter;
  sample->contacts = d_->ncon;
  for (int w : {mjWARN_CONTACTFULL, mjWARN_CNSTRFULL, mjWARN_BADQACC, mjWARN_BADQPOS, mjWARN_BADQVEL})
    if (d_->warning[w].number > 0) return false;
  return true;
}

void MujocoRunner::Forward() { mj_forward(m_, d_); }

std::string MujocoRunner::Version() { return mj_versionString(); }

}  // namespace csim::bench
