// ProgressBar: drawing from its own thread, the sum over processes through a
// ProgressShare (here a fake: MPI's is cli/MpiProgress), FASTMU_PROGRESS.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "fastmu/core/Progress.hh"

namespace fastmu {
namespace {

// Another process that has done `others` items; counts the exchanges.
struct FakeShare final : ProgressShare {
  std::atomic<std::size_t> others{0};
  std::atomic<int>* calls;
  explicit FakeShare(std::atomic<int>* c) : calls(c) {}
  std::size_t exchange(std::size_t mine) override {
    ++*calls;
    return mine + others.load();
  }
};

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
  return s;
}

// Waits (at most 10 s) until the bar's thread has exchanged `n` times.
bool wait_for_calls(const std::atomic<int>& calls, int n) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (calls.load() < n) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(ProgressBar, DrawsTheSumOfAllProcesses) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  std::atomic<int> calls{0};
  auto share = std::make_unique<FakeShare>(&calls);
  FakeShare* fake = share.get();
  fake->others = 700;
  {
    ProgressBar bar("work", 1000, true, std::move(share), out);
    bar.add(100);
    bar.add(200);
    ASSERT_TRUE(wait_for_calls(calls, 2));
    EXPECT_EQ(bar.shown(), 1000u);
    bar.finish();
  }
  const std::string text = contents(out);
  std::fclose(out);
  EXPECT_NE(text.find("\rwork ["), std::string::npos) << text;
  EXPECT_NE(text.find("100.0%  1000/1000"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;  // one final line
}

TEST(ProgressBar, ExactFinalCountAndSilentWhenNotDrawing) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  std::atomic<int> calls{0};
  {
    // Not drawn (a rank other than 0): its count still goes out.
    ProgressBar bar("quiet", 10, false, std::make_unique<FakeShare>(&calls), out);
    bar.add(4);
    ASSERT_TRUE(wait_for_calls(calls, 1));
    bar.finish(10);
    EXPECT_EQ(bar.shown(), 10u);
  }
  EXPECT_EQ(contents(out), "");
  {
    // Drawn, finished with the count the caller knows (an MPI sum).
    ProgressBar bar("exact", 50, true, std::make_unique<FakeShare>(&calls), out);
    bar.add(20);
    bar.finish(50);
    bar.finish();  // a second finish draws nothing more
  }
  const std::string text = contents(out);
  std::fclose(out);
  EXPECT_NE(text.rfind("100.0%  50/50"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
}

TEST(ProgressBar, ExchangesAFewTimesASecondAtMost) {
  std::atomic<int> calls{0};
  const auto t0 = std::chrono::steady_clock::now();
  {
    ProgressBar bar("rate", 1, false, std::make_unique<FakeShare>(&calls));
    for (int i = 0; i < 2'000'000; ++i) bar.add(1);  // adds never exchange
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // One exchange per tick (kTick = 250 ms) and one at the end.
  EXPECT_LE(calls.load(), static_cast<int>(secs / 0.25) + 1);
  EXPECT_GE(calls.load(), 1);
}

TEST(ProgressBar, EnvironmentForcesOnOrOff) {
  const char* old = std::getenv("FASTMU_PROGRESS");
  const std::string saved = old ? old : "";
  setenv("FASTMU_PROGRESS", "1", 1);
  EXPECT_TRUE(progress_wanted());
  setenv("FASTMU_PROGRESS", "0", 1);
  EXPECT_FALSE(progress_wanted());
  if (old) {
    setenv("FASTMU_PROGRESS", saved.c_str(), 1);
  } else {
    unsetenv("FASTMU_PROGRESS");
  }
}

// Away from a terminal: a line every so often with the count, a second
// count and the time left; none for work shorter than the interval.
TEST(ProgressBar, TimedLinesAwayFromATerminal) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressBar bar("tables  G4_Fe", 4, ProgressMode::lines, nullptr, out,
                    std::chrono::milliseconds(300));
    bar.add(1);
    bar.add_also(2000, "histories");
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    bar.add(3);
  }
  const std::string text = contents(out);
  std::fclose(out);
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  const auto first = text.find("tables  G4_Fe: 1/4 (25.0 %), 2e+03 histories, ");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_NE(text.find(" s elapsed, about ", first), std::string::npos) << text;
  EXPECT_NE(text.find(" s left\n", first), std::string::npos) << text;
  EXPECT_NE(text.find("tables  G4_Fe: 4/4, 2e+03 histories, done in "), std::string::npos) << text;

  std::FILE* quiet = std::tmpfile();
  {
    ProgressBar bar("short", 4, ProgressMode::lines, nullptr, quiet, std::chrono::seconds(60));
    bar.add(4);
  }
  EXPECT_EQ(contents(quiet), "");
  std::fclose(quiet);
}

// Items of unequal cost: the time left follows the work, not the count (a
// quarter of the bins done but 1 % of the work: ~99 x the time so far).
TEST(ProgressBar, TimeLeftWeighsTheWork) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressBar bar("weighted", 4, ProgressMode::lines, nullptr, out,
                    std::chrono::milliseconds(400));
    bar.set_work_total(100);
    bar.add(1, 1.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
  }
  const std::string text = contents(out);
  std::fclose(out);
  const auto at = text.find("about ");
  ASSERT_NE(at, std::string::npos) << text;
  const double left = std::strtod(text.c_str() + at + 6, nullptr);
  // By the count: 3 x ~0.5 s; by the work: 99 x ~0.5 s.
  EXPECT_GT(left, 30) << text;
  EXPECT_LT(left, 80) << text;
}

TEST(ProgressBar, LinesWhereStderrIsNotATerminal) {
  const char* old = std::getenv("FASTMU_PROGRESS");
  const std::string saved = old ? old : "";
  unsetenv("FASTMU_PROGRESS");
  if (!isatty(2)) EXPECT_EQ(progress_mode(), ProgressMode::lines);
  setenv("FASTMU_PROGRESS", "0", 1);
  EXPECT_EQ(progress_mode(), ProgressMode::off);
  setenv("FASTMU_PROGRESS", "1", 1);
  EXPECT_EQ(progress_mode(), ProgressMode::bar);
  if (old) {
    setenv("FASTMU_PROGRESS", saved.c_str(), 1);
  } else {
    unsetenv("FASTMU_PROGRESS");
  }
}

}  // namespace
}  // namespace fastmu
