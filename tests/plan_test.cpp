// `plan` end to end: a corpus of good, broken and missing files.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.hpp"

namespace h5ad_sizer {
namespace {

using nlohmann::json;
using testing::data_file;
using testing::run_tool;

// Three good files (one in a subdirectory), two broken ones, a text file
// that is not .h5ad (not picked up), and a manifest naming a missing file.
struct Corpus {
  testing::ScopedTempDir dir;
  std::string root;
  Corpus() : root(dir.file("corpus")) {
    std::filesystem::create_directories(root + "/sub");
    for (const char* name : {"example.h5ad", "dense.h5ad", "bad_truncated.h5ad", "bad_not_hdf5.h5ad"}) {
      std::filesystem::copy_file(data_file(name), root + "/" + name);
    }
    std::filesystem::copy_file(data_file("csc.h5ad"), root + "/sub/csc.h5ad");
    dir.write("corpus/notes.txt", "not a dataset\n");
  }
};

std::vector<json> lines_of(const std::string& text) {
  std::vector<json> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(json::parse(line));
  return lines;
}

TEST(CliPlan, SizesEveryDatasetAndTheSummaryAddsUp) {
  const Corpus corpus;
  const std::string ndjson = corpus.dir.file("plan.ndjson");
  const auto result = run_tool({"plan", corpus.root, corpus.dir.file("missing.h5ad"), "--ndjson", ndjson, "--json",
                                "-j", "3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const json summary = json::parse(result.out);
  const std::vector<json> lines = lines_of(testing::read_text(ndjson));
  EXPECT_EQ(summary["datasets"], 6);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(summary["sized"], 3);
  // Every line is a size document or an error; the per-bucket figures are
  // those of the documents.
  std::map<int, std::pair<int, std::uint64_t>> per_bucket;
  std::map<std::string, int> errors;
  for (const json& line : lines) {
    if (line.contains("error")) {
      errors[line["error"]["name"].get<std::string>()]++;
      EXPECT_EQ(line["error"]["message"].get<std::string>().find('\n'), std::string::npos);
      continue;
    }
    auto& bucket = per_bucket[line["bucket"]["index"].get<int>()];
    bucket.first++;
    bucket.second += line["estimate"]["required_bytes"].get<std::uint64_t>();
  }
  EXPECT_EQ(errors["H5adSizer.InvalidFile"], 2);
  EXPECT_EQ(errors["H5adSizer.Unreadable"], 1);
  int counted = 0;
  for (const json& bucket : summary["buckets"]) {
    const auto& expected = per_bucket[bucket["index"].get<int>()];
    EXPECT_EQ(bucket["datasets"], expected.first);
    EXPECT_EQ(bucket["required_total_bytes"], expected.second);
    counted += bucket["datasets"].get<int>();
  }
  EXPECT_EQ(counted, 3);
  ASSERT_EQ(summary["failed"].size(), 3u);
  EXPECT_EQ(summary["failed"][2]["source"], corpus.dir.file("missing.h5ad"));  // the inputs' order
  EXPECT_EQ(summary["failed"][2]["exit_status"], 3);
  EXPECT_GT(summary["all_on_largest_mib"].get<std::uint64_t>(), summary["reserved_mib"].get<std::uint64_t>());
}

TEST(CliPlan, OneJobAtATimeGivesTheSameSummary) {
  const Corpus corpus;
  const auto serial = run_tool({"plan", corpus.root, "--json", "-j", "1"});
  const auto parallel = run_tool({"plan", corpus.root, "--json", "-j", "8"});
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  EXPECT_EQ(json::parse(serial.out), json::parse(parallel.out));
}

TEST(CliPlan, ReadsAManifestFromStandardInputOrAFile) {
  const Corpus corpus;
  const std::string manifest = "# datasets\n" + corpus.root + "/example.h5ad\n\n  " + corpus.root + "/dense.h5ad  \n";
  const auto piped = run_tool({"plan", "-", "--json"}, {}, manifest);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(json::parse(piped.out)["sized"], 2);
  const auto from_file = run_tool({"plan", "--manifest", corpus.dir.write("list.txt", manifest), "--json"});
  EXPECT_EQ(json::parse(from_file.out), json::parse(piped.out));
}

TEST(CliPlan, TheTableNamesBucketsAndFailures) {
  const Corpus corpus;
  const auto result = run_tool({"plan", corpus.root, "--baseline-bucket", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("BUCKET"), std::string::npos);
  EXPECT_NE(result.out.find("machine-1"), std::string::npos);
  EXPECT_NE(result.out.find("3 of 5 datasets sized; 0 need more than the largest bucket; 2 failed"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("H5adSizer.InvalidFile: " + corpus.root + "/bad_truncated.h5ad: truncated"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("with every job on at least machine-2"), std::string::npos);
}

TEST(CliPlan, NothingToPlanIsAUsageError) {
  const testing::ScopedTempDir empty;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan"}, {"plan", empty.file("")}, {"plan", "--baseline-bucket", "9", data_file("dense.h5ad")}}) {
    const auto result = run_tool(args);
    EXPECT_EQ(result.exit_code, 2) << args.size() << " " << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
  const auto unreadable = run_tool({"plan", "--manifest", empty.file("none.txt")});
  EXPECT_EQ(unreadable.exit_code, 3) << unreadable.err;
}

TEST(CliPlan, AnInterruptKeepsWhatIsDone) {
  const testing::ScopedTempDir dir;
  std::string manifest;  // 2000 names (a manifest's repeats are sized once)
  for (int i = 0; i < 2000; ++i) {
    const std::string link = dir.file("d" + std::to_string(i) + ".h5ad");
    std::filesystem::create_symlink(data_file("example.h5ad"), link);
    manifest += link + "\n";
  }
  dir.write("list.txt", manifest);
  const std::string ndjson = dir.file("plan.ndjson");
  // Started in the background, interrupted once its first lines are out
  // (or after 10 s, when the test fails anyway).
  const std::string command =
      "sh -c '" + std::string(H5AD_SIZER_BINARY) + " plan --manifest " + dir.file("list.txt") + " -j 2 --json --ndjson " +
      ndjson + " >" + dir.file("out") + " 2>" + dir.file("err") + " & pid=$!; " +
      "i=0; while [ ! -s " + ndjson + " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; " +
      "kill -INT $pid; wait $pid; echo $? >" + dir.file("rc") + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(testing::read_text(dir.file("rc")), "130\n");
  const json summary = json::parse(testing::read_text(dir.file("out")));
  const std::vector<json> lines = lines_of(testing::read_text(ndjson));
  EXPECT_GT(lines.size(), 0u);
  EXPECT_LT(lines.size(), 2000u);
  EXPECT_EQ(summary["sized"], lines.size());
  EXPECT_NE(testing::read_text(dir.file("err")).find("interrupted: "), std::string::npos);
}

TEST(CliCheck, PassesOnWhatPlanWroteAndFailsOnAMovedBucket) {
  const Corpus corpus;
  const std::string expect = corpus.dir.file("sizes.json");
  ASSERT_EQ(run_tool({"plan", corpus.root, "--write-expect", expect}).exit_code, 0);
  const auto pass = run_tool({"check", "--expect", expect, corpus.root});
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find("check: 5 datasets, all match " + expect), std::string::npos) << pass.out;

  // A table whose first bucket is smaller than example.h5ad's needs moves it.
  const std::string table = corpus.dir.write("small.json", R"({"profile": "load", "buckets": [
    {"name": "tiny", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/tiny:1", "vcpus": 1, "memory_mib": 1},
    {"name": "machine-1", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/m1:1", "vcpus": 2, "memory_mib": 7953}]})");
  json doc = json::parse(testing::read_text(expect));
  for (auto& [source, entry] : doc["datasets"].items()) {
    if (entry.contains("bucket")) entry["bucket"] = "tiny";
  }
  corpus.dir.write("tiny.json", doc.dump());
  const auto moved = run_tool({"check", "--expect", corpus.dir.file("tiny.json"), "--buckets", table, corpus.root});
  EXPECT_EQ(moved.exit_code, 7) << moved.err;
  EXPECT_NE(moved.out.find(corpus.root + "/example.h5ad: bucket tiny -> machine-1 (required "), std::string::npos)
      << moved.out;
  EXPECT_NE(moved.out.find("3 differ from"), std::string::npos) << moved.out;
}

TEST(CliCheck, AMissingDatasetAndANewOneDiffer) {
  const Corpus corpus;
  const std::string expect = corpus.dir.file("sizes.json");
  ASSERT_EQ(run_tool({"plan", corpus.root, "--write-expect", expect}).exit_code, 0);
  std::filesystem::remove(corpus.root + "/dense.h5ad");
  std::filesystem::copy_file(data_file("strings.h5ad"), corpus.root + "/strings.h5ad");
  const auto result = run_tool({"check", "--expect", expect, corpus.root});
  EXPECT_EQ(result.exit_code, 7);
  EXPECT_NE(result.out.find(corpus.root + "/dense.h5ad: in " + expect), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("but not among the inputs"), std::string::npos);
  EXPECT_NE(result.out.find(corpus.root + "/strings.h5ad: not in " + expect + " (bucket machine-1"), std::string::npos)
      << result.out;
}

TEST(CliCheck, ToleranceAndJunit) {
  const Corpus corpus;
  const std::string expect = corpus.dir.file("sizes.json");
  ASSERT_EQ(run_tool({"plan", corpus.root, "--write-expect", expect}).exit_code, 0);
  json doc = json::parse(testing::read_text(expect));
  const std::string example = corpus.root + "/example.h5ad";
  doc["datasets"][example]["required_bytes"] = doc["datasets"][example]["required_bytes"].get<std::uint64_t>() / 2;
  corpus.dir.write("halved.json", doc.dump());
  // Same bucket: passes without a tolerance, fails with one.
  EXPECT_EQ(run_tool({"check", "--expect", corpus.dir.file("halved.json"), corpus.root}).exit_code, 0);
  const auto strict = run_tool({"check", "--expect", corpus.dir.file("halved.json"), "--tolerance", "10", corpus.root});
  EXPECT_EQ(strict.exit_code, 7);
  EXPECT_NE(strict.out.find(example + ": required "), std::string::npos) << strict.out;
  EXPECT_NE(strict.out.find("(+100.0%)"), std::string::npos) << strict.out;
  const auto junit = run_tool({"check", "--expect", corpus.dir.file("halved.json"), "--tolerance", "10", "--junit",
                               corpus.root});
  EXPECT_EQ(junit.exit_code, 7);
  // Well-formed XML (Debian's python3 parses it), one test case per dataset, one failure.
  const std::string xml = corpus.dir.write("report.xml", junit.out);
  const std::string parse =
      "/usr/bin/python3 -c \"import sys, xml.etree.ElementTree as T; s = T.parse(sys.argv[1]).getroot()[0]; "
      "print(s.get('tests'), s.get('failures'), len(s.findall('testcase')), len(s.findall('testcase/failure')))\" " +
      xml + " >" + corpus.dir.file("parsed") + " 2>&1";
  ASSERT_EQ(std::system(parse.c_str()), 0) << testing::read_text(corpus.dir.file("parsed"));
  EXPECT_EQ(testing::read_text(corpus.dir.file("parsed")), "5 1 5 1\n");
}

TEST(CliCheck, AnUnreadableOrMalformedExpectationIsNamed) {
  const Corpus corpus;
  const auto missing = run_tool({"check", "--expect", corpus.dir.file("none.json"), corpus.root});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("none.json"), std::string::npos);
  const auto malformed = run_tool({"check", "--expect", corpus.dir.write("bad.json", "{\"datasets\": []}"), corpus.root});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("bad.json"), std::string::npos) << malformed.err;
  EXPECT_EQ(malformed.out, "");
}


// Writes a bucket table of two buckets split at `small_mib`, with prices,
// for `profile`.
std::string two_bucket_table(const testing::ScopedTempDir& dir, const std::string& name, const char* profile,
                             int small_mib) {
  const std::string arn = "arn:aws:batch:us-west-2:123456789012:job-definition/";
  dir.write(name, std::string(R"({"profile": ")") + profile + R"(", "buckets": [)" +
                      R"({"name": "small", "job_definition": ")" + arn + R"(small:1", "vcpus": 2, "memory_mib": )" +
                      std::to_string(small_mib) + R"(, "price_per_hour": 0.1},)" +
                      R"({"name": "big", "job_definition": ")" + arn +
                      R"(big:1", "vcpus": 16, "memory_mib": 127728, "price_per_hour": 1.0}]})");
  return dir.file(name);
}

TEST(CliPlan, SeveralBucketTablesSideBySideWithPrices) {
  const Corpus corpus;
  // The three good files need 178-182 MiB for migrate and 168-172 MiB for
  // process: a bucket of 176 MiB takes them only for process, so the third
  // table must have been sized again with its own profile.
  const std::string migrate = two_bucket_table(corpus.dir, "migrate.json", "migrate", 176);
  const std::string process = two_bucket_table(corpus.dir, "process.json", "process", 176);
  const auto result = run_tool({"plan", corpus.root, "--buckets", migrate, "--buckets", migrate + "", "--buckets",
                                process, "--json", "--baseline-bucket", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json summary = json::parse(result.out);
  ASSERT_EQ(summary["compared"].size(), 3u);
  json first = summary;
  first.erase("compared");
  EXPECT_EQ(summary["compared"][0], first);  // the planned table is the first compared
  EXPECT_EQ(summary["bucket_table"], migrate);
  for (std::size_t i : {0u, 1u}) {
    const json& migrated = summary["compared"][i];
    EXPECT_EQ(migrated["buckets"][0]["datasets"], 0);
    EXPECT_EQ(migrated["buckets"][1]["datasets"], 3);
    EXPECT_DOUBLE_EQ(migrated["price_per_hour"]["buckets"].get<double>(), 3 * 1.0);
    EXPECT_DOUBLE_EQ(migrated["price_per_hour"]["all_on_largest"].get<double>(), 3 * 1.0);
  }
  const json& processed = summary["compared"][2];
  EXPECT_EQ(processed["bucket_table"], process);
  EXPECT_EQ(processed["buckets"][0]["datasets"], 3);
  EXPECT_EQ(processed["buckets"][0]["price_per_hour"], 0.1);
  EXPECT_DOUBLE_EQ(processed["price_per_hour"]["buckets"].get<double>(), 3 * 0.1);
  EXPECT_DOUBLE_EQ(processed["price_per_hour"]["baseline"].get<double>(), 3 * 0.1);
  EXPECT_EQ(processed["failed"].size(), 2u);
  EXPECT_EQ(processed["reserved_mib"], 3 * 176);

  const auto table = run_tool({"plan", corpus.root, "--buckets", migrate, "--buckets", process});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("price of an hour of every job: 3.00 in the buckets chosen; 3.00 with every job on big"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("compared, one job a dataset:"), std::string::npos);
  EXPECT_NE(table.out.find(process), std::string::npos);

  // Without prices, none is shown; check compares with one table only.
  const auto unpriced = run_tool({"plan", corpus.root, "--json"});
  EXPECT_FALSE(json::parse(unpriced.out).contains("price_per_hour"));
  EXPECT_FALSE(json::parse(unpriced.out).contains("compared"));
  const auto check = run_tool({"check", "--expect", corpus.dir.file("none.json"), corpus.root, "--buckets", migrate,
                               "--buckets", process});
  EXPECT_EQ(check.exit_code, 2);
}

}  // namespace
}  // namespace h5ad_sizer
