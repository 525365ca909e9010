// The remembered top momentum of a large input (TopMomentumMemo.hh): what a
// run on the same, unchanged file reads instead of the whole file, and every
// change that must make it read the file again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "fastmu/transport/stream/TopMomentumMemo.hh"

namespace fastmu {
namespace {

namespace fs = std::filesystem;

struct MemoFolder {
  fs::path dir = fs::temp_directory_path() / "fastmu_top_memo_test";
  fs::path memos = dir / "inputs";
  fs::path input = dir / "muons.h5";
  MemoFolder() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(input, std::ios::binary) << "rows";
    fs::resize_file(input, kTopMemoMinBytes);  // sparse: no 64 MiB written
  }
  ~MemoFolder() { fs::remove_all(dir); }
};

TEST(TopMomentumMemo, RecallsWhatWasRememberedForTheSameFileAndLimit) {
  MemoFolder f;
  const std::string key = top_momentum_key(f.input, 1e5);
  ASSERT_FALSE(key.empty());
  EXPECT_FALSE(recall_top_momentum(f.memos, key).has_value());
  remember_top_momentum(f.memos, key, 349.87654321);
  const auto top = recall_top_momentum(f.memos, key);
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(*top, 349.87654321);  // exactly: the tables' top depends on it
  EXPECT_EQ(top_momentum_key(f.input, 1e5), key);
  EXPECT_FALSE(recall_top_momentum(f.memos, top_momentum_key(f.input, 3e38)).has_value());
}

TEST(TopMomentumMemo, AChangedFileIsReadAgain) {
  MemoFolder f;
  const std::string key = top_momentum_key(f.input, 1e5);
  remember_top_momentum(f.memos, key, 42.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a new ctime
  {
    std::fstream io(f.input, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(1000);
    io.put('x');
  }
  const std::string changed = top_momentum_key(f.input, 1e5);
  EXPECT_NE(changed, key);
  EXPECT_FALSE(recall_top_momentum(f.memos, changed).has_value());
}

TEST(TopMomentumMemo, SmallOrMissingFilesAndDamagedMemosAreMisses) {
  MemoFolder f;
  fs::resize_file(f.input, kTopMemoMinBytes - 1);
  EXPECT_TRUE(top_momentum_key(f.input, 1e5).empty());
  EXPECT_TRUE(top_momentum_key(f.dir / "none.h5", 1e5).empty());
  EXPECT_TRUE(top_momentum_key(f.dir, 1e5).empty());  // a folder
  EXPECT_FALSE(recall_top_momentum(f.memos, "").has_value());

  fs::resize_file(f.input, kTopMemoMinBytes);
  const std::string key = top_momentum_key(f.input, 1e5);
  remember_top_momentum(f.memos, key, 10.0);
  ASSERT_EQ(std::distance(fs::directory_iterator(f.memos), fs::directory_iterator()), 1);
  const fs::path memo = fs::directory_iterator(f.memos)->path();
  for (const std::string tail : {"top=\n", "top=abc\n", "top=1e999\n", "top=-1\n", "top=5"}) {
    std::ofstream(memo, std::ios::binary | std::ios::trunc) << key << tail;
    EXPECT_FALSE(recall_top_momentum(f.memos, key).has_value()) << tail;
  }
  std::ofstream(memo, std::ios::binary | std::ios::trunc) << key << "top=10\n"
                                                          << std::string(100, ' ');
  EXPECT_FALSE(recall_top_momentum(f.memos, key).has_value());  // longer than a memo
  std::ofstream(memo, std::ios::binary | std::ios::trunc) << "top=10\n";
  EXPECT_FALSE(recall_top_momentum(f.memos, key).has_value());
}

TEST(TopMomentumMemo, AnUnwritableFolderCostsNothing) {
  MemoFolder f;
  std::ofstream(f.memos, std::ios::binary) << "a file where the folder should be";
  const std::string key = top_momentum_key(f.input, 1e5);
  EXPECT_NO_THROW(remember_top_momentum(f.memos, key, 10.0));
  EXPECT_FALSE(recall_top_momentum(f.memos, key).has_value());
}

}  // namespace
}  // namespace fastmu
