#include "cli/isolation.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer::cli {
namespace {

using namespace std::chrono_literals;

Limits limits(std::chrono::milliseconds time = 5000ms, std::uint64_t memory = 512 * kMiB) {
  Limits out;
  out.time = time;
  out.time_text = std::to_string(time.count()) + " ms";
  out.memory_bytes = memory;
  out.memory_text = std::to_string(memory / kMiB) + " MiB";
  return out;
}

// The status and message of the Error `body` throws.
std::pair<ExitStatus, std::string> failure_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    return {error.status(), error.what()};
  }
  ADD_FAILURE() << "no Error thrown";
  return {ExitStatus::success, ""};
}

TEST(Isolation, ReturnsWhatTheChildReturned) {
  const std::string big(1 << 20, 'x');  // more than a pipe holds at once
  EXPECT_EQ(run_isolated(limits(), "f.h5ad", [&](Progress&) { return big; }), big);
  EXPECT_EQ(run_isolated(limits(), "f.h5ad", [](Progress&) { return std::string(); }), "");
}

TEST(Isolation, TheChildsErrorsComeBackUnchanged) {
  const auto [status, message] = failure_of([] {
    run_isolated(limits(), "f.h5ad", [](Progress&) -> std::string {
      throw Error(ExitStatus::input_unreadable, "f.h5ad: cannot open: No such file or directory");
    });
  });
  EXPECT_EQ(status, ExitStatus::input_unreadable);
  EXPECT_EQ(message, "f.h5ad: cannot open: No such file or directory");
}

TEST(Isolation, ACrashIsAnInvalidFileNamingTheLastElement) {
  const auto [status, message] = failure_of([] {
    run_isolated(limits(), "f.h5ad", [](Progress& progress) -> std::string {
      progress.reading("/obs");
      progress.reading("/obs/_index");
      std::signal(SIGSEGV, SIG_DFL);  // a sanitizer's handler would turn it into an exit
      std::raise(SIGSEGV);
      return "unreachable";
    });
  });
  EXPECT_EQ(status, ExitStatus::invalid_h5ad);
  EXPECT_EQ(message, "f.h5ad: the HDF5 reader crashed (SIGSEGV) reading /obs/_index: the file is corrupt");
}

TEST(Isolation, AnAbortIsACrashToo) {
  const auto [status, message] = failure_of([] {
    run_isolated(limits(), "f.h5ad", [](Progress&) -> std::string { std::abort(); });
  });
  EXPECT_EQ(status, ExitStatus::invalid_h5ad);
  EXPECT_EQ(message, "f.h5ad: the HDF5 reader crashed (SIGABRT) reading the file's header: the file is corrupt");
}

TEST(Isolation, AHangEndsAtTheWallClockLimit) {
  const auto started = std::chrono::steady_clock::now();
  const auto [status, message] = failure_of([] {
    run_isolated(limits(300ms), "f.h5ad", [](Progress& progress) -> std::string {
      progress.reading("/uns/rank_genes_groups");
      std::this_thread::sleep_for(60s);
      return "unreachable";
    });
  });
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_EQ(status, ExitStatus::invalid_h5ad);
  EXPECT_EQ(message, "f.h5ad: time limit of 300 ms reached reading /uns/rank_genes_groups (--time-limit)");
}

TEST(Isolation, RunningOutOfMemoryIsReportedNotFatal) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer builds run the reader without an address-space limit";
#endif
  const auto [status, message] = failure_of([] {
    run_isolated(limits(5000ms, 256 * kMiB), "f.h5ad", [](Progress& progress) -> std::string {
      progress.reading("/X/data");
      std::vector<std::vector<char>> hog;
      for (;;) hog.emplace_back(64 * kMiB, 'x');
    });
  });
  EXPECT_EQ(status, ExitStatus::invalid_h5ad);
  EXPECT_EQ(message, "f.h5ad: memory limit of 256 MiB reached reading /X/data (--memory-limit)");
}

TEST(Isolation, TheChildNeverWritesToStdout) {
  testing::internal::CaptureStdout();
  const std::string result = run_isolated(limits(), "f.h5ad", [](Progress&) {
    std::cout << "stray" << std::endl;
    std::printf("stray\n");
    std::fflush(stdout);
    return std::string("result");
  });
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(result, "result");
}

TEST(Isolation, WhatACrashingChildPrintsIsDropped) {
  testing::internal::CaptureStderr();
  const auto [status, message] = failure_of([] {
    run_isolated(limits(), "f.h5ad", [](Progress&) -> std::string {
      std::fputs("malloc(): corrupted top size\n", stderr);
      std::fflush(stderr);
      std::abort();
    });
  });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(status, ExitStatus::invalid_h5ad);
}

TEST(Isolation, AChildsWarningsArePassedOn) {
  testing::internal::CaptureStderr();
  const std::string result = run_isolated(limits(), "f.h5ad", [](Progress&) {
    std::fputs("h5ad-sizer: warning: something to know\n", stderr);
    std::fflush(stderr);
    return std::string("ok");
  });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "h5ad-sizer: warning: something to know\n");
  EXPECT_EQ(result, "ok");
}

TEST(Isolation, NoLimitsMeansNone) {
  Limits none;
  EXPECT_EQ(run_isolated(none, "f.h5ad", [](Progress&) { return std::string("ok"); }), "ok");
}

}  // namespace
}  // namespace h5ad_sizer::cli
