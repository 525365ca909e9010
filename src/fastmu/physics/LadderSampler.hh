// The detailed engine's samples for histogram tables: batches of histories
// through nested spheres (LadderHistory.hh), on the CPU threads or the GPU.
//
// A batch is a list of jobs, one per momentum bin and round of sampling;
// history i of a job uses the random stream (job seed, first_id + i), so a
// bin's samples do not depend on how its histories are cut into rounds, on
// threads, or on the other jobs of the batch. The CPU and the GPU run the
// same history code; their normal and exponential variates come from other
// algorithms (RandomDistributions.hh), so their samples agree statistically,
// not bit for bit (tests/tables/test_ladder.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"

namespace fastmu {

// "cpu", "cuda" or "auto" (the GPU when one is usable, else the CPU); throws
// fastmu::Error naming `what` for anything else, or for "cuda" without a GPU.
EngineBackend resolve_engine_backend(const std::string& name, const std::string& what);
const char* to_string(EngineBackend backend);
// Whether this build has CUDA and a GPU is usable.
bool engine_gpu_available();

struct LadderJob {
  std::uint64_t seed = 0;      // the job's random streams
  std::uint64_t first_id = 0;  // histories first_id .. first_id + n - 1
  std::size_t n = 0;
  double p_lo = 0, p_hi = 0;  // p0 uniform in [p_lo, p_hi] [GeV/c]
  int rungs = 0;              // records rungs 0 .. rungs - 1 (the history ends there)
};

// What every job shares: the material's nested sphere radii (ascending),
// the muons' charge and the physics options.
struct LadderSpec {
  std::vector<double> radii;  // [m]
  int charge = -1;
  PhysicsOptions physics;
};

// A batch's records. Job j owns histories [history_offset[j], + n) and
// records [record_offset[j], + n * rungs): rung k of its history i is record
// record_offset[j] + k * n + i.
struct LadderRecords {
  std::vector<std::size_t> history_offset, record_offset;
  std::vector<float> p0;    // per history [GeV/c]
  std::vector<float> loss;  // per record: (p0 - pz) / p0 (1 for a stopped muon)
  std::vector<float> kick;  // per record: |pt| / p0

  // Sizes the arrays and offsets for `jobs`.
  void lay_out(const std::vector<LadderJob>& jobs);
};

// Runs `jobs` for `material` on `backend` (`threads`: CPU worker threads, 0:
// all cores). Throws fastmu::Error for bad arguments.
LadderRecords sample_ladder(const Material& material, const LadderSpec& spec,
                            const std::vector<LadderJob>& jobs, EngineBackend backend,
                            int threads = 0);

// The same into `out`, already laid out for `jobs` (LadderRecords::lay_out):
// a caller that keeps `out` from call to call reuses its memory (a table
// build's calls hold up to 10^8 records each) and can lay it out before it
// waits for the engine.
void sample_ladder_into(const Material& material, const LadderSpec& spec,
                        const std::vector<LadderJob>& jobs, EngineBackend backend, int threads,
                        LadderRecords& out);

}  // namespace fastmu
