#include "fastmu/tables/CacheListing.hh"

#include <algorithm>
#include <map>
#include <regex>

#include "fastmu/core/Error.hh"
#include "fastmu/io/TempFiles.hh"
#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/TableFile.hh"
#include "fastmu/tables/TableParams.hh"

namespace fastmu {
namespace {

// TableCache::file_name: "<material>_step<mm>mm_<16 hex>_v<format>.h5".
const std::regex& cache_file_name() {
  static const std::regex re(R"(.+_step[0-9.e+-]+mm_[0-9a-f]{16}_v[0-9]+\.h5)");
  return re;
}

// "fastmu <version>" of a generator or key ("" if none).
std::string engine_of(const std::string& text) {
  static const std::regex re(R"((fastmu [^ ]+) detailed engine)");
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

std::string current_engine() { return engine_of(engine_generator(PhysicsOptions{})); }

CacheEntryState state_of(const TableSummary& s) {
  // Keys that named the top momentum ("bins N top P") come from before a
  // ladder covered lower tops.
  static const std::regex top(R"( bins [0-9]+ top )");
  if (s.format_version != kTableFormatVersion || s.cache_key.empty() ||
      std::regex_search(s.cache_key, top)) {
    return CacheEntryState::other_format;
  }
  if (engine_of(s.cache_key) != current_engine()) return CacheEntryState::other_engine;
  return CacheEntryState::current;
}

// The key without the table's own step: the same for every file of a ladder.
std::string ladder_of(const std::string& key) {
  static const std::regex rung(R"(; step [^ ]+ from [^ ]+ GeV/c)");
  return std::regex_replace(key, rung, "");
}

}  // namespace

const char* to_string(CacheEntryState s) {
  switch (s) {
    case CacheEntryState::current:
      return "current";
    case CacheEntryState::other_engine:
      return "other engine";
    case CacheEntryState::other_format:
      return "other format";
    case CacheEntryState::unreadable:
      return "unreadable";
  }
  return "?";
}

std::vector<CacheEntry> list_cache(const std::filesystem::path& dir) {
  std::error_code ec;
  std::map<std::string, CacheEntry> ladders;
  std::vector<CacheEntry> out;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = f.path().filename().string();
    if (!f.is_regular_file(ec) || !std::regex_match(name, cache_file_name())) continue;
    const std::uint64_t bytes = f.file_size(ec);
    TableSummary s;
    try {
      s = read_table_summary(f.path());
    } catch (const Error&) {
      CacheEntry bad;
      bad.material = name.substr(0, name.rfind("_step"));
      bad.bytes = bytes;
      bad.state = CacheEntryState::unreadable;
      bad.files.push_back(f.path());
      out.push_back(std::move(bad));
      continue;
    }
    const std::string group = s.material + "\n" + ladder_of(s.cache_key) + "\n" +
                              (s.cache_key.empty() ? name : std::string());
    CacheEntry& e = ladders[group];
    e.material = s.material;
    e.state = state_of(s);
    e.engine = engine_of(s.generator);
    e.steps_m.push_back(s.step_m);
    if (s.p_min > 0 && (e.p_min == 0 || s.p_min < e.p_min)) e.p_min = s.p_min;
    e.p_max = std::max(e.p_max, s.p_max);
    e.bytes += bytes;
    e.created_utc = std::max(e.created_utc, s.created_utc);
    e.files.push_back(f.path());
  }
  for (auto& [group, e] : ladders) {
    std::sort(e.steps_m.begin(), e.steps_m.end());
    std::sort(e.files.begin(), e.files.end());
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const CacheEntry& a, const CacheEntry& b) {
    return a.material != b.material ? a.material < b.material : a.p_max < b.p_max;
  });
  return out;
}

PruneResult prune_cache(const std::filesystem::path& dir, bool dry_run) {
  PruneResult r;
  std::vector<std::filesystem::path> doomed = io::stale_temp_files(dir);
  for (const CacheEntry& e : list_cache(dir)) {
    if (e.state == CacheEntryState::current) continue;
    doomed.insert(doomed.end(), e.files.begin(), e.files.end());
  }
  for (const auto& p : doomed) {
    std::error_code ec;
    const std::uint64_t bytes = std::filesystem::file_size(p, ec);
    if (!dry_run && !std::filesystem::remove(p, ec)) {
      if (ec) throw Error("tables prune: cannot remove '" + p.string() + "': " + ec.message());
      continue;  // removed meanwhile
    }
    r.removed.push_back(p);
    r.bytes += ec ? 0 : bytes;
  }
  return r;
}

}  // namespace fastmu
