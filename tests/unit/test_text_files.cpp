// Whole files read as text: at their size in one read, or to their end where the size cannot be
// told (a named pipe, as a shell's process substitution gives).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/results/csv.hpp"
#include "kprof/errors.hpp"

namespace {

namespace fs = std::filesystem;
using kprof::detail::read_text_file;

class TextFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kprof-text-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST_F(TextFiles, AFileIsReadWholeWhateverItsSize) {
  std::string large;
  for (int i = 0; i < 300000; ++i) large += "line " + std::to_string(i) + ",\r\n";
  large += std::string("\0bytes\xff", 7);
  write(path("large.csv"), large);
  EXPECT_EQ(read_text_file(path("large.csv")), large);
  write(path("empty.csv"), "");
  EXPECT_EQ(read_text_file(path("empty.csv")), "");
}

TEST_F(TextFiles, APipeIsReadToItsEnd) {
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text(200000, 'x');
  std::thread writer([&] { write(fifo, text); });
  std::string read;
  try {
    read = read_text_file(fifo);
  } catch (...) {
    std::ifstream release(fifo);  // the writer waits for a reader to open the pipe
    writer.join();
    throw;
  }
  writer.join();
  EXPECT_EQ(read, text);
}

TEST_F(TextFiles, WhatCannotBeReadIsAFormatErrorNamingTheFile) {
  EXPECT_THROW(read_text_file(path("missing.json")), kprof::FormatError);
  try {
    read_text_file(dir_.string());
    ADD_FAILURE() << "a folder was read";
  } catch (const kprof::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
}

}  // namespace
