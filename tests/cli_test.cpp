// The command-line contract: what other people's state machines rely on.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace h5ad_sizer {
namespace {

using nlohmann::json;
using testing::data_file;
using testing::CommandResult;
using testing::run_tool;

const char* kTwoBuckets = R"({
  "profile": {"name": "tight", "multiplier": 1.0, "overhead_mib": 5},
  "buckets": [
    {"name": "tiny", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/tiny:1",
     "vcpus": 1, "memory_mib": 1},
    {"name": "small", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/small:2",
     "vcpus": 2, "memory_mib": 2}
  ]})";

TEST(CliSize, PrintsExactlyOneJsonObjectWithTheContractFields) {
  const auto result = run_tool({"size", data_file("example.h5ad")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json doc = json::parse(result.out);  // throws on anything but one JSON value
  EXPECT_EQ(doc["job_definition"],
            "arn:aws:batch:us-west-2:123456789012:job-definition/h5ad-machine-1:1");
  EXPECT_EQ(doc["bucket"]["index"], 1);
  EXPECT_EQ(doc["bucket"]["name"], "machine-1");
  EXPECT_EQ(doc["bucket"]["vcpus"], 2);
  EXPECT_EQ(doc["bucket"]["memory_mib"], 7953);
  EXPECT_EQ(doc["next_job_definition"],
            "arn:aws:batch:us-west-2:123456789012:job-definition/h5ad-machine-2:1");
  EXPECT_EQ(doc["overflow"], false);
  EXPECT_EQ(doc["container_overrides"]["ResourceRequirements"][1]["Value"], "7953");

  const json& estimate = doc["estimate"];
  EXPECT_TRUE(estimate["loaded_bytes"].is_number_unsigned());
  EXPECT_GT(estimate["required_bytes"].get<std::uint64_t>(), estimate["loaded_bytes"].get<std::uint64_t>());
  EXPECT_EQ(estimate["profile"], "migrate");
  EXPECT_EQ(estimate["baselines"]["n_obs_x_n_vars"], 200 * 50);

  const json& dataset = doc["dataset"];
  EXPECT_EQ(dataset["source"], data_file("example.h5ad"));
  EXPECT_EQ(dataset["layout"], "0.8+");
  // What the read leaves: at least every final byte, at most its peak.
  const json& left = dataset["memory"];
  EXPECT_GE(left["after_read_bytes"].get<std::uint64_t>(), left["final_bytes"].get<std::uint64_t>());
  EXPECT_LE(left["after_read_bytes"].get<std::uint64_t>(), left["loaded_bytes"].get<std::uint64_t>());
  EXPECT_EQ(dataset["n_obs"], 200);
  EXPECT_EQ(dataset["n_vars"], 50);
  EXPECT_EQ(dataset["X"]["encoding"], "csr_matrix");
  EXPECT_EQ(dataset["X"]["dtype"], "float32");
  EXPECT_EQ(dataset["X"]["shape"], json::array({200, 50}));
  EXPECT_EQ(dataset["X"]["nnz"], 2000);
  EXPECT_EQ(dataset["raw_X"]["shape"], json::array({200, 80}));
  EXPECT_EQ(estimate["baselines"]["x_and_raw_x_nbytes"],
            dataset["X"]["loaded_bytes"].get<std::uint64_t>() +
                dataset["raw_X"]["loaded_bytes"].get<std::uint64_t>());
  std::uint64_t loaded = 0;
  bool has_counts = false;
  for (const json& element : dataset["elements"]) {
    for (const char* key : {"path", "encoding", "dtype", "shape", "nnz", "stored_bytes",
                            "stored_bytes_exact", "loaded_bytes", "transient_bytes", "io_transient_bytes",
                            "buffer_transient_bytes", "temporaries_bytes", "held_bytes"}) {
      EXPECT_TRUE(element.contains(key)) << key;
    }
    loaded += element["loaded_bytes"].get<std::uint64_t>();
    has_counts |= element["path"] == "/layers/counts";
  }
  EXPECT_TRUE(has_counts);
  // The peak is every element's final bytes, the largest transient and the
  // start-up of read_h5ad, each reported.
  const json& memory = dataset["memory"];
  EXPECT_EQ(loaded, memory["final_bytes"].get<std::uint64_t>());
  EXPECT_GT(memory["peak_transient_bytes"].get<std::uint64_t>(), 0u);
  // The element read at the peak, or the one whose leftovers are held then
  // (after the last read): one of them, at least.
  EXPECT_TRUE(memory["peak_element"].is_string() || memory["peak_held_from_element"].is_string());
  EXPECT_EQ(loaded + memory["peak_transient_bytes"].get<std::uint64_t>() +
                memory["io_transient_bytes"].get<std::uint64_t>() +
                memory["buffer_transient_bytes"].get<std::uint64_t>() +
                memory["read_overhead_bytes"].get<std::uint64_t>(),
            estimate["loaded_bytes"].get<std::uint64_t>());
  EXPECT_EQ(memory["loaded_bytes"], estimate["loaded_bytes"]);
  EXPECT_EQ(result.err, "");
}

TEST(CliSize, StatsCountTheReadsOfALocalFile) {
  const auto plain = run_tool({"size", data_file("example.h5ad")});
  EXPECT_FALSE(json::parse(plain.out).contains("io"));
  const auto result = run_tool({"size", data_file("example.h5ad"), "--stats"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json io = json::parse(result.out)["io"];
  // HDF5's small reads come from 64 KiB blocks, each read once: the 172 KiB
  // file in three requests, hundreds of reads fewer than HDF5 asks for.
  EXPECT_GT(io["requests"].get<std::uint64_t>(), 0u);
  EXPECT_LE(io["requests"].get<std::uint64_t>(), 3u);
  EXPECT_GT(io["bytes_read"].get<std::uint64_t>(), 0u);
  EXPECT_LE(io["bytes_read"].get<std::uint64_t>(), 176496u);
  EXPECT_TRUE(io["seconds"].is_number());
  EXPECT_EQ(io["round_trips"], io["requests"]);  // a local file's reads come one after another
  // Every byte HDF5 and the readers asked for came from a block read.
  EXPECT_GT(io["bytes_wanted"].get<std::uint64_t>(), 0u);
  EXPECT_LE(io["bytes_wanted"].get<std::uint64_t>(), io["bytes_read"].get<std::uint64_t>());
}

TEST(CliSize, AbsentXIsEncodingNoneAndAbsentRawIsNull) {
  const auto result = run_tool({"size", data_file("no_x.h5ad")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json doc = json::parse(result.out);
  EXPECT_EQ(doc["dataset"]["X"]["encoding"], "none");
  EXPECT_TRUE(doc["dataset"]["raw_X"].is_null());
  EXPECT_EQ(doc["dataset"]["n_obs"], 30);
}

TEST(CliSize, OverflowChoosesTheLargestAndWarns) {
  testing::ScopedTempDir dir;
  const auto table = dir.write("b.json", kTwoBuckets);
  const auto result = run_tool({"size", data_file("example.h5ad"), "--buckets", table});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json doc = json::parse(result.out);
  EXPECT_EQ(doc["overflow"], true);
  EXPECT_EQ(doc["bucket"]["name"], "small");
  EXPECT_TRUE(doc["next_job_definition"].is_null());
  EXPECT_NE(result.err.find("warning"), std::string::npos);
}

TEST(CliSize, StrictOverflowExitsFiveWithNothingOnStdout) {
  testing::ScopedTempDir dir;
  const auto table = dir.write("b.json", kTwoBuckets);
  const auto result = run_tool({"size", data_file("example.h5ad"), "--buckets", table, "--strict"});
  EXPECT_EQ(result.exit_code, 5);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("more than the largest bucket 'small'"), std::string::npos) << result.err;
}

TEST(CliSize, MinBucketAndProfileAndEnvironmentTable) {
  const auto raised = run_tool({"size", data_file("dense.h5ad"), "--min-bucket", "3"});
  ASSERT_EQ(raised.exit_code, 0) << raised.err;
  EXPECT_EQ(json::parse(raised.out)["bucket"]["index"], 3);

  const auto profiled = run_tool({"size", data_file("dense.h5ad"), "--profile", "process"});
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  EXPECT_EQ(json::parse(profiled.out)["estimate"]["profile"], "process");

  testing::ScopedTempDir dir;
  const auto table = dir.write("b.json", kTwoBuckets);
  const auto from_env =
      run_tool({"size", data_file("dense.h5ad")}, {"H5AD_SIZER_BUCKETS=" + table});
  ASSERT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_EQ(json::parse(from_env.out)["estimate"]["profile"], "tight");
}

TEST(CliSize, ABatchJobConfiguresItThroughTheEnvironment) {
  // A job definition's command is just `size`: Step Functions sets these.
  const auto result = run_tool({"size"}, {"DATASET_URI=" + data_file("dense.h5ad"), "MIN_BUCKET=2",
                                          std::string("H5AD_SIZER_BUCKETS_JSON=") + kTwoBuckets});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json doc = json::parse(result.out);
  EXPECT_EQ(doc["dataset"]["source"], data_file("dense.h5ad"));
  EXPECT_EQ(doc["bucket"]["index"], 2);
  EXPECT_EQ(doc["bucket_table"], "H5AD_SIZER_BUCKETS_JSON");
  EXPECT_EQ(doc["estimate"]["profile"], "tight");
  EXPECT_EQ(doc["estimate"]["runtime"], "anndata-0.11");  // the default

  // Flags win over the environment.
  const auto flagged = run_tool({"size", data_file("dense.h5ad"), "--min-bucket", "1"},
                                {"DATASET_URI=/nonexistent.h5ad", "MIN_BUCKET=2"});
  ASSERT_EQ(flagged.exit_code, 0) << flagged.err;
  EXPECT_EQ(json::parse(flagged.out)["bucket"]["index"], 1);

  const auto bad_inline = run_tool({"size", data_file("dense.h5ad")}, {"H5AD_SIZER_BUCKETS_JSON={"});
  EXPECT_EQ(bad_inline.exit_code, 2);
  EXPECT_NE(bad_inline.err.find("H5AD_SIZER_BUCKETS_JSON: not valid JSON"), std::string::npos) << bad_inline.err;
}

TEST(CliSize, TheRuntimeComesFromTheFlagTheTableOrTheDefault) {
  auto required = [](const CommandResult& result) {
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out)["estimate"];
  };
  const json v08 = required(run_tool({"size", data_file("dense.h5ad"), "--runtime", "anndata-0.8"}));
  const json v011 = required(run_tool({"size", data_file("dense.h5ad")}));
  EXPECT_EQ(v08["runtime"], "anndata-0.8");
  EXPECT_EQ(v011["runtime"], "anndata-0.11");
  EXPECT_EQ(v011["runtime_detail"]["interpreter_mib"], 160);
  // The same read; the newer stack's interpreter is 64 MiB larger.
  EXPECT_EQ(v08["loaded_bytes"], v011["loaded_bytes"]);
  EXPECT_EQ(v011["required_bytes"].get<std::uint64_t>() - v08["required_bytes"].get<std::uint64_t>(),
            64u * 1024 * 1024);

  testing::ScopedTempDir dir;
  const std::string table = dir.write("t.json", R"({"runtime": "anndata-0.10", "profile": "load", "buckets": [
    {"name": "m", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/m:1", "vcpus": 1,
     "memory_mib": 4096}]})");
  const json from_table = required(run_tool({"size", data_file("dense.h5ad"), "--buckets", table}));
  EXPECT_EQ(from_table["runtime"], "anndata-0.10");
  EXPECT_EQ(from_table["profile_detail"]["overhead_mib"], 104);
  const json flag_wins =
      required(run_tool({"size", data_file("dense.h5ad"), "--buckets", table, "--runtime", "anndata-0.12"}));
  EXPECT_EQ(flag_wins["runtime"], "anndata-0.12");
  EXPECT_EQ(flag_wins["profile_detail"]["overhead_mib"], 152);

  const auto other = run_tool({"size", data_file("dense.h5ad"), "--runtime", "anndata-0.14"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("unknown runtime \"anndata-0.14\""), std::string::npos) << other.err;
  const std::string bad_table = dir.write("bad.json", R"({"runtime": "anndata-9", "profile": "load", "buckets": [
    {"name": "m", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/m:1", "vcpus": 1,
     "memory_mib": 4096}]})");
  const auto refused = run_tool({"size", data_file("dense.h5ad"), "--buckets", bad_table});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("runtime: must name a modelled runtime"), std::string::npos) << refused.err;
}

TEST(CliSize, WithoutATokenNothingIsSent) {
  // An endpoint that cannot answer: reaching it would fail the command.
  const auto result = run_tool({"size", data_file("dense.h5ad"), "--no-task-token"},
                               {"TASK_TOKEN=t", "AWS_ENDPOINT_URL_SFN=http://127.0.0.1:9",
                                "AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto missing_keys = run_tool({"size", data_file("dense.h5ad"), "--task-token", "t"},
                                     {"-u", "AWS_ACCESS_KEY_ID", "-u", "AWS_SECRET_ACCESS_KEY",
                                      "-u", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                                      "-u", "AWS_CONTAINER_CREDENTIALS_FULL_URI"});
  EXPECT_EQ(missing_keys.exit_code, 6);
  EXPECT_EQ(missing_keys.out, "");
  EXPECT_NE(missing_keys.err.find("no AWS credentials"), std::string::npos) << missing_keys.err;
}

TEST(CliSize, UsageErrorsExitTwo) {
  EXPECT_EQ(run_tool({"size"}).exit_code, 2);
  EXPECT_EQ(run_tool({"size", data_file("dense.h5ad"), "--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(run_tool({"size", data_file("dense.h5ad"), "--min-bucket", "0"}).exit_code, 2);
  EXPECT_EQ(run_tool({"size", data_file("dense.h5ad"), "--min-bucket", "6"}).exit_code, 2);
  EXPECT_EQ(run_tool({"size", data_file("dense.h5ad"), "--profile", "nope"}).exit_code, 2);
  EXPECT_EQ(run_tool({"frobnicate"}).exit_code, 2);
  const auto missing_table = run_tool({"size", data_file("dense.h5ad"), "--buckets", "/nonexistent.json"});
  EXPECT_EQ(missing_table.exit_code, 2);
  EXPECT_EQ(missing_table.out, "");
}

TEST(CliSize, UnreadableInputExitsThree) {
  testing::ScopedTempDir dir;
  for (const std::string& path : {dir.file("missing.h5ad"), dir.file("")}) {
    const auto result = run_tool({"size", path});
    EXPECT_EQ(result.exit_code, 3) << path << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_NE(result.err.find(path), std::string::npos);
  }
}

TEST(CliSize, PermissionDeniedExitsThree) {
  testing::ScopedTempDir dir;
  const std::string path = dir.write("secret.h5ad", "x");
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  // Root reads anything: as root (CI), run the tool without the capabilities
  // that let it ignore file permissions.
  std::vector<std::string> env;
  if (geteuid() == 0) env = {"setpriv", "--bounding-set=-dac_override,-dac_read_search"};
  const auto result = run_tool({"size", path}, env);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("Permission denied"), std::string::npos) << result.err;
}

TEST(CliSize, InvalidFilesExitFourWithOneLineNamingFileAndElement) {
  for (const char* name :
       {"bad_not_hdf5.h5ad", "bad_truncated.h5ad", "bad_indptr_length.h5ad",
        "bad_data_indices_length.h5ad", "bad_no_shape.h5ad", "bad_negative_shape.h5ad",
        "bad_obs_rows.h5ad", "bad_overflow.h5ad", "bad_not_anndata.h5ad",
        "bad_string_heap.h5ad"}) {
    const auto result = run_tool({"size", data_file(name)});
    EXPECT_EQ(result.exit_code, 4) << name;
    EXPECT_EQ(result.out, "") << name;
    EXPECT_EQ(result.err.rfind("h5ad-sizer: error: " + data_file(name), 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

TEST(CliInspect, TableEndsWithTotalAndJsonHasTheTree) {
  const auto table = run_tool({"inspect", data_file("example.h5ad")});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("\nTOTAL "), std::string::npos);
  EXPECT_NE(table.out.find("/layers/counts"), std::string::npos);

  const auto tree = run_tool({"inspect", data_file("example.h5ad"), "--json"});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  const json doc = json::parse(tree.out);
  EXPECT_EQ(doc["elements"][0]["path"], "/X");
  EXPECT_EQ(doc["elements"][0]["children"].size(), 3u);
  // inspect walks the chunk indexes: exact compressed bytes, adding up to
  // the file; size settles for the object headers.
  EXPECT_EQ(doc["stored_bytes_exact"], true);
  EXPECT_EQ(doc["stored_total_bytes"].get<std::uint64_t>() + doc["unattributed_bytes"].get<std::uint64_t>(),
            doc["file_bytes"].get<std::uint64_t>());
  const json sized = json::parse(run_tool({"size", data_file("example.h5ad")}).out)["dataset"];
  EXPECT_EQ(sized["stored_bytes_exact"], false);
  EXPECT_EQ(sized["X"]["stored_bytes_exact"], false);
  EXPECT_LT(doc["elements"][0]["stored_bytes"].get<std::uint64_t>(),
            sized["X"]["stored_bytes"].get<std::uint64_t>());
}

TEST(CliBuckets, PrintsTheTableAndRejectsBadOnes) {
  const auto builtin = run_tool({"buckets"});
  ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
  EXPECT_EQ(json::parse(builtin.out)["buckets"].size(), 5u);

  testing::ScopedTempDir dir;
  const auto bad = run_tool({"buckets", "--buckets", dir.write("bad.json", R"({"profile": "load"})")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("missing field \"buckets\""), std::string::npos) << bad.err;
}

// Start-up is most of a local run: the binary must not pull in libcurl's
// TLS/Kerberos/LDAP chain (libcurl is opened only for URLs).
TEST(Cli, LocalRunsLoadNoNetworkLibraries) {
  testing::ScopedTempDir dir;
  const std::string listing = dir.file("ldd");
  ASSERT_EQ(std::system(("ldd " + testing::shell_quote(H5AD_SIZER_BINARY) + " >" + listing).c_str()), 0);
  const std::string libraries = testing::read_text(listing);
  EXPECT_NE(libraries.find("libc.so"), std::string::npos) << libraries;
  for (const char* network : {"libcurl", "libssl", "libgnutls", "libkrb5", "libldap"}) {
    EXPECT_EQ(libraries.find(network), std::string::npos) << network << "\n" << libraries;
  }
}

TEST(Cli, HelpAndVersionExitZero) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"--version"}, {"size", "--help"}, {"inspect", "--help"}}) {
    const auto result = run_tool(args);
    EXPECT_EQ(result.exit_code, 0) << args.front();
    EXPECT_FALSE(result.out.empty());
  }
}

}  // namespace
}  // namespace h5ad_sizer
