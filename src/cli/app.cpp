#include "cli/app.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "cli/failure.hpp"
#include "cli/handoff.hpp"
#include "cli/isolation.hpp"
#include "cli/lambda.hpp"
#include "cli/plan_command.hpp"
#include "cli/size_command.hpp"
#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "h5ad_sizer/estimate/profile.hpp"
#include "h5ad_sizer/estimate/runtime.hpp"
#include "h5ad_sizer/render/html_report.hpp"
#include "h5ad_sizer/render/json_report.hpp"
#include "h5ad_sizer/render/table_report.hpp"
#include "h5ad_sizer/source.hpp"

namespace h5ad_sizer::cli {
namespace {

struct InspectOptions {
  std::string path;
  std::string runtime = kDefaultRuntime;
  bool json = false;
  std::optional<std::string> html;  // also write the treemap page there
  bool no_sign_request = false;
  bool allow_link_local = false;
  ReadLimits limits;
};

struct BucketsOptions {
  std::optional<std::string> buckets;
  std::optional<std::string> profile;
  std::optional<std::string> runtime;
};

// Where `size` hands its result besides stdout: the Step Functions task
// that waits for it.
struct TaskOptions {
  std::string token;  // --task-token, else $TASK_TOKEN
  bool ignore = false;  // --no-task-token

  std::optional<std::string> effective() const {
    if (ignore || token.empty()) return std::nullopt;
    return token;
  }
};

int run_size(const SizeOptions& options, const TaskOptions& task) {
  const auto document = size_document(options);
  if (const auto token = task.effective()) deliver_success(*token, document);
  std::cout << document.dump(2) << '\n';
  return 0;
}

int run_inspect(const InspectOptions& options) {
  const Limits limits = limits_for(options.limits, options.path);
  const std::string text = run_isolated(limits, display_name(options.path), [&](Progress& progress) {
    const SourceOptions source_options{!options.no_sign_request, remote_deadline(options.limits, options.path),
                                       options.allow_link_local};
    const OpenedSource source = open_source(options.path, source_options);
    ReadOptions read_options;
    read_options.on_element = [&progress](const std::string& path) { progress.reading(path); };
    const Report report = read_anndata(source, read_options);
    const MemoryEstimate memory = estimate_memory(report, *find_runtime(options.runtime));
    if (options.html) write_text_file(*options.html, render_inspect_html(report, memory));
    if (options.json) {
      return dataset_json(report, memory, /*tree=*/true)
                 .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
             "\n";
    }
    return render_table(report, memory);
  });
  std::cout << text;
  return 0;
}

// --memory-limit, --time-limit and --allow-link-local, the same for every
// command that reads.
void add_limit_options(CLI::App& command, ReadLimits& limits, bool& allow_link_local) {
  command.add_flag("--allow-link-local", allow_link_local,
                   "Let a URL reach link-local addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254: "
                   "cloud metadata and credential endpoints), refused by default");
  command
      .add_option("--memory-limit", limits.memory_mib,
                  "MiB of address space the reader may use; a file that needs more is reported as "
                  "invalid (exit 4); 0 for no limit")
      ->default_val(limits.memory_mib)
      ->check(CLI::NonNegativeNumber);
  command
      .add_option("--time-limit", limits.time_seconds,
                  "Seconds the read may take (wall clock and CPU); default 30, 60 for a URL; "
                  "0 for no limit")
      ->check(CLI::NonNegativeNumber);
}

// What plan and check read and how: the datasets, the table, the runtime,
// the processes and their limits.
void add_corpus_options(CLI::App& command, PlanOptions& options, const std::string& runtime_help,
                        const std::string& no_sign_help) {
  options.jobs = std::max(1u, std::thread::hardware_concurrency());
  command.add_option("INPUT", options.inputs,
                     "Files, s3:// or http(s):// URLs, directories (searched for *.h5ad), "
                     "s3://BUCKET/PREFIX/ (its *.h5ad objects), or - for a manifest on standard input");
  command.add_option("--manifest", options.manifests, "A file of paths or URLs, one a line ('#' comments)");
  // One table an occurrence, so that the inputs after it stay inputs.
  command
      .add_option("--buckets", options.buckets,
                  "Bucket table (JSON); default: as for size. plan: again to compare tables, the first "
                  "the one planned")
      ->allow_extra_args(false);
  command.add_option("--profile", options.profile, "Job profile overriding the table's: " + builtin_profile_names());
  command.add_option("--runtime", options.runtime, runtime_help);
  command.add_option("-j,--jobs", options.jobs, "Datasets sized at once (processes); default: the cores")
      ->check(CLI::Range(1, 1024));
  command.add_flag("--no-sign-request", options.no_sign_request, no_sign_help);
  add_limit_options(command, options.limits, options.allow_link_local);
  command.callback([&options] {
    if (options.inputs.empty() && options.manifests.empty()) {
      throw CLI::ValidationError("INPUT", "name at least one dataset, directory or manifest");
    }
  });
}

// The table `size` would use with the same flags and environment: its
// origin, and the profile in effect for the runtime.
int run_buckets(const BucketsOptions& options) {
  BucketTable table = load_bucket_table(options.buckets);
  table.profile = resolve_job(table, options.runtime, options.profile).profile;
  std::cout << bucket_table_json(table).dump(2) << '\n';
  return 0;
}

std::vector<std::string> runtime_names_list() {
  std::vector<std::string> names;
  for (const RuntimeModel& model : runtime_models()) names.push_back(model.name);
  return names;
}

void configure_logging(bool verbose) {
  // Diagnostics go to stderr: stdout carries only the result.
  auto logger = spdlog::stderr_logger_mt("h5ad-sizer");
  logger->set_pattern("h5ad-sizer: %l: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

// The task token of a `size` command line that did not parse: a state
// machine waiting on it must still learn that the job failed.
std::optional<std::string> token_of_unparsed(int argc, char** argv) {
  bool size = false;
  std::optional<std::string> token;
  if (const char* env = std::getenv("TASK_TOKEN"); env && *env) token = env;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "size") size = true;
    if (arg == "--no-task-token") return std::nullopt;
    if (arg == "--task-token" && i + 1 < argc) token = argv[i + 1];
    if (arg.rfind("--task-token=", 0) == 0) token = arg.substr(std::strlen("--task-token="));
  }
  return size ? token : std::nullopt;
}

// "size " when the command line names a subcommand, so that a usage error
// points at the help that explains it.
std::string subcommand_of(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    for (const char* name : {"size", "inspect", "plan", "check", "buckets", "lambda"}) {
      if (arg == name) return arg + " ";
    }
  }
  return "";
}

// Reports a failure to the waiting task, if any. Returns the exit status:
// the failure's, or not_delivered when the report did not get through.
int hand_over_failure(const std::optional<std::string>& token, const Failure& failure) {
  if (!token || failure.status == ExitStatus::not_delivered) return static_cast<int>(failure.status);
  try {
    deliver_failure(*token, failure.status, failure.message);
  } catch (...) {
    print_failure(current_failure());
    return static_cast<int>(ExitStatus::not_delivered);
  }
  return static_cast<int>(failure.status);
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"Size an AnnData (.h5ad) file from its metadata and pick the AWS Batch job "
               "definition for it.",
               "h5ad-sizer"};
  app.set_version_flag("--version", H5AD_SIZER_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // -v works after the subcommand too
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log debug detail to stderr");

  SizeOptions size;
  TaskOptions task;
  auto* size_command = app.add_subcommand(
      "size", "Estimate memory and print the job definition as JSON (for Step Functions)");
  const char* path_help = "The .h5ad file: a path, s3://BUCKET/KEY, or an http(s):// URL";
  const std::string no_sign_help = "Read s3:// objects anonymously (public buckets)";
  size_command->add_option("PATH", size.path, std::string(path_help) + "; default: $DATASET_URI")
      ->envname("DATASET_URI")
      ->required();
  size_command->add_flag("--no-sign-request", size.no_sign_request, no_sign_help);
  size_command->add_option("--buckets", size.buckets,
                           "Bucket table (JSON); default: $H5AD_SIZER_BUCKETS (a file), else "
                           "$H5AD_SIZER_BUCKETS_JSON (the table), else built in");
  size_command->add_option("--profile", size.profile,
                           "Job profile overriding the table's: " + builtin_profile_names());
  const std::string runtime_help = "The anndata stack the job runs: " + runtime_names() + " (default: the "
                                   "table's \"runtime\", else " + kDefaultRuntime + ")";
  size_command->add_option("--runtime", size.runtime, runtime_help);
  size_command->add_option("--min-bucket", size.min_bucket,
                           "Never choose below this bucket (1-based), e.g. after an OOM; "
                           "default: $MIN_BUCKET, else 1")
      ->envname("MIN_BUCKET");
  size_command->add_flag("--strict", size.strict,
                          "Exit 5 instead of choosing the largest bucket when none is enough");
  size_command->add_flag("--stats", size.stats,
                         "Add \"io\": requests, bytes read and seconds spent reading the file");
  size_command->add_option("--task-token", task.token,
                           "Also send the result (or the failure) to this Step Functions task "
                           "(SendTaskSuccess/SendTaskFailure); default: $TASK_TOKEN")
      ->envname("TASK_TOKEN");
  size_command->add_flag("--no-task-token", task.ignore, "Ignore $TASK_TOKEN: print the result only");
  add_limit_options(*size_command, size.limits, size.allow_link_local);

  InspectOptions inspect;
  auto* inspect_command =
      app.add_subcommand("inspect", "Show every element's stored and loaded size");
  inspect_command->add_option("PATH", inspect.path, path_help)->required();
  inspect_command->add_flag("--no-sign-request", inspect.no_sign_request, no_sign_help);
  inspect_command->add_flag("--json", inspect.json, "Print the element tree as JSON");
  inspect_command->add_option("--html", inspect.html,
                              "Also write FILE: one self-contained page with a treemap of the peak by element");
  inspect_command->add_option("--runtime", inspect.runtime, runtime_help)
      ->check(CLI::IsMember(runtime_names_list()));
  add_limit_options(*inspect_command, inspect.limits, inspect.allow_link_local);

  PlanOptions plan;
  auto* plan_command = app.add_subcommand(
      "plan", "Size many datasets: how many land in each bucket, which fit none, which fail");
  add_corpus_options(*plan_command, plan, runtime_help, no_sign_help);
  plan_command->add_option("--ndjson", plan.ndjson,
                           "Also write one line per dataset to this file: its size document, or "
                           "{\"source\", \"error\": {\"exit_status\", \"name\", \"message\"}}");
  plan_command->add_flag("--json", plan.json, "Print the summary as JSON");
  plan_command->add_option("--html", plan.html,
                           "Also write FILE: one self-contained page with a histogram of required memory, the "
                           "buckets, the 20 largest and the failures");
  plan_command->add_option("--baseline-bucket", plan.baseline_bucket,
                           "Also compare with every job on at least this bucket (1-based)");
  plan_command->add_option("--write-expect", plan.write_expect,
                           "Write each dataset's bucket and required memory to this file, for check --expect");

  CheckOptions check;
  auto* check_command = app.add_subcommand(
      "check", "Compare datasets' buckets with an expectation file (for CI): exit 7 when any differs");
  add_corpus_options(*check_command, check.corpus, runtime_help, no_sign_help);
  check_command->add_option("--expect", check.expect, "The file plan --write-expect wrote")->required();
  check_command->add_option("--tolerance", check.tolerance,
                            "Also fail a dataset whose required memory moved by more than this many percent");
  check_command->add_flag("--junit", check.junit, "Print a JUnit XML report instead of lines");

  BucketsOptions buckets;
  auto* buckets_command =
      app.add_subcommand("buckets", "Validate and print the bucket table in effect");
  buckets_command->add_option("--buckets", buckets.buckets,
                              "Bucket table (JSON); default: as for size ($H5AD_SIZER_BUCKETS, "
                              "$H5AD_SIZER_BUCKETS_JSON, else built in)");
  buckets_command->add_option("--profile", buckets.profile,
                              "Show this built-in profile instead of the table's: " + builtin_profile_names());
  buckets_command->add_option("--runtime", buckets.runtime, runtime_help);

  app.add_subcommand("lambda",
                     "Run as an AWS Lambda function (container image): serve the Runtime API at "
                     "$AWS_LAMBDA_RUNTIME_API, each event {\"path\": ...} answered with the size JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);  // --help, --version
  } catch (const CLI::ParseError& error) {
    const Failure failure{ExitStatus::usage_error,
                          std::string(error.what()) + " (see h5ad-sizer " + subcommand_of(argc, argv) + "--help)"};
    configure_logging(false);
    print_failure(failure);
    return hand_over_failure(token_of_unparsed(argc, argv), failure);
  }

  configure_logging(verbose);
  try {
    if (*size_command) return run_size(size, task);
    if (*inspect_command) return run_inspect(inspect);
    if (*plan_command) return run_plan(plan);
    if (*check_command) return run_check(check);
    if (*buckets_command) return run_buckets(buckets);
    return run_lambda();
  } catch (...) {
    const Failure failure = current_failure();
    print_failure(failure);
    return hand_over_failure(*size_command ? task.effective() : std::nullopt, failure);
  }
}

}  // namespace h5ad_sizer::cli
