#include "cli/plan_command.hpp"
#include "cli/progress_line.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/buckets/plan.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/io/aws.hpp"
#include "h5ad_sizer/io/s3.hpp"
#include "h5ad_sizer/render/check_report.hpp"
#include "h5ad_sizer/render/html_report.hpp"
#include "h5ad_sizer/render/plan_report.hpp"
#include "h5ad_sizer/buckets/expectation.hpp"
#include "h5ad_sizer/source.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer::cli {
namespace {

// Exit status of a plan stopped by SIGINT: the shell's 128 + 2.
constexpr int kInterrupted = 130;

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

void add_lines(std::istream& in, std::vector<std::string>& out) {
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    line.erase(line.find_last_not_of(" \t\r") + 1);
    out.push_back(line.substr(first));
  }
}

std::vector<std::string> h5ad_files_under(const std::filesystem::path& directory) {
  std::vector<std::string> found;
  std::error_code error;
  std::filesystem::recursive_directory_iterator it(
      directory, std::filesystem::directory_options::skip_permission_denied, error);
  if (error) throw_unreadable(directory.string() + ": " + error.message());
  for (const auto& entry : it) {
    if (entry.path().extension() == ".h5ad" && entry.is_regular_file(error)) found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// One `size` child: its process (the leader of its own group, so that its
// reader goes with it), and what it wrote.
struct Running {
  std::size_t index = 0;  // into the datasets
  pid_t pid = -1;
  int out = -1;
  int err = -1;
  std::string out_text;
  std::string err_text;
};

std::string self_path() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find this program's path: " + error.message());
  return path.string();
}

// `size` as `plan` runs it for one dataset: the plan's own flags, no task
// token, the path after "--" (a name may start with '-').
std::vector<std::string> size_command(const std::string& self, const PlanOptions& options,
                                      const std::optional<std::string>& table, const std::string& path) {
  std::vector<std::string> args = {self, "size", "--no-task-token"};
  auto add = [&](const char* flag, const std::optional<std::string>& value) {
    if (value) args.insert(args.end(), {flag, *value});
  };
  add("--buckets", table);
  add("--profile", options.profile);
  add("--runtime", options.runtime);
  args.insert(args.end(), {"--memory-limit", std::to_string(options.limits.memory_mib)});
  if (options.limits.time_seconds) args.insert(args.end(), {"--time-limit", std::to_string(*options.limits.time_seconds)});
  if (options.no_sign_request) args.push_back("--no-sign-request");
  if (options.allow_link_local) args.push_back("--allow-link-local");
  args.insert(args.end(), {"--", path});
  return args;
}

Running start(const std::vector<std::string>& args, std::size_t index) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    std::vector<char*> argv;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first
  ::close(out[1]);
  ::close(err[1]);
  return {index, pid, out[0], err[0], {}, {}};
}

// What the child's exit and output say about its dataset.
PlanOutcome outcome_of(const std::string& path, int status, const Running& child, std::string& line) {
  PlanOutcome outcome;
  outcome.source = display_name(path);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    try {
      const auto doc = nlohmann::ordered_json::parse(child.out_text);
      outcome.source = doc.at("dataset").at("source").get<std::string>();
      outcome.required_bytes = doc.at("estimate").at("required_bytes").get<std::uint64_t>();
      outcome.bucket = doc.at("bucket").at("index").get<std::size_t>() - 1;
      outcome.overflow = doc.at("overflow").get<bool>();
      line = doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      return outcome;
    } catch (const nlohmann::json::exception& e) {
      outcome.failure = ExitStatus::internal_error;
      outcome.message = std::string("size printed no valid document: ") + e.what();
    }
  } else if (WIFEXITED(status) && WEXITSTATUS(status) <= static_cast<int>(ExitStatus::not_delivered)) {
    outcome.failure = static_cast<ExitStatus>(WEXITSTATUS(status));
    std::string message = child.err_text;
    // Its one line, without the program's prefix.
    for (const char* prefix : {"h5ad-sizer: error: ", "h5ad-sizer: internal error: "}) {
      const auto at = message.rfind(prefix);
      if (at != std::string::npos) message = message.substr(at + std::strlen(prefix));
    }
    message.erase(message.find_last_not_of("\n") + 1);
    outcome.message = printable(message);
  } else {
    outcome.failure = ExitStatus::internal_error;
    outcome.message = WIFSIGNALED(status) ? "size was killed by signal " + std::to_string(WTERMSIG(status))
                                          : "size exited " + std::to_string(WEXITSTATUS(status));
  }
  nlohmann::ordered_json error = {{"source", outcome.source},
                                  {"error", {{"exit_status", static_cast<int>(*outcome.failure)},
                                             {"name", error_name(*outcome.failure)},
                                             {"message", outcome.message}}}};
  line = error.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return outcome;
}

// Reads what is there; false once both pipes are closed.
bool drain(Running& child, const pollfd* polled) {
  char buffer[65536];
  for (int k = 0; k < 2; ++k) {
    int& fd = k == 0 ? child.out : child.err;
    if (fd < 0 || !(polled[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      (k == 0 ? child.out_text : child.err_text).append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      ::close(fd);
      fd = -1;
    }
  }
  return child.out >= 0 || child.err >= 0;
}

}  // namespace

std::vector<std::string> plan_datasets(const PlanOptions& options) {
  std::vector<std::string> datasets;
  for (const std::string& manifest : options.manifests) {
    std::ifstream in(manifest);
    if (!in) throw_unreadable(manifest + ": cannot read the manifest: " + std::strerror(errno));
    add_lines(in, datasets);
  }
  for (const std::string& input : options.inputs) {
    std::error_code error;
    if (input == "-") {
      add_lines(std::cin, datasets);
    } else if (!is_remote(input) && std::filesystem::is_directory(input, error)) {
      for (std::string& file : h5ad_files_under(input)) datasets.push_back(std::move(file));
    } else {
      datasets.push_back(input);
    }
  }
  // An s3:// prefix stands for the .h5ad objects under it.
  std::vector<std::string> expanded;
  for (std::string& dataset : datasets) {
    if (io::is_s3_prefix(dataset)) {
      for (std::string& url : io::list_h5ad_objects(dataset, !options.no_sign_request, io::process_environment())) {
        expanded.push_back(std::move(url));
      }
    } else {
      expanded.push_back(std::move(dataset));
    }
  }
  if (expanded.empty()) {
    throw_usage("plan: the inputs name no dataset (no .h5ad file, empty manifest or S3 prefix)");
  }
  // Each once, where it first appears.
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (std::string& dataset : expanded) {
    if (seen.insert(dataset).second) unique.push_back(std::move(dataset));
  }
  return unique;
}

namespace {

// The datasets sized, in the inputs' order (those under way when SIGINT
// came are left out), each line written to `ndjson` as it finishes.
struct SizedCorpus {
  std::vector<PlanOutcome> outcomes;
  bool interrupted = false;
};

SizedCorpus size_corpus(const std::vector<std::string>& datasets, const PlanOptions& options,
                        const std::optional<std::string>& table, std::ostream* ndjson) {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  ::sigaction(SIGINT, &action, nullptr);
  const std::string self = self_path();
  std::vector<std::optional<PlanOutcome>> done(datasets.size());
  std::vector<Running> running;
  std::size_t next = 0;
  std::size_t finished = 0;
  std::size_t failed = 0;
  const std::size_t jobs = std::max<std::size_t>(1, options.jobs);
  auto progress = std::make_unique<ProgressLine>(datasets.size(), ::isatty(STDERR_FILENO) == 1);
  while (!g_interrupted && (next < datasets.size() || !running.empty())) {
    while (!g_interrupted && next < datasets.size() && running.size() < jobs) {
      running.push_back(start(size_command(self, options, table, datasets[next]), next));
      ++next;
    }
    std::vector<pollfd> fds;
    for (const Running& child : running) {
      fds.push_back({child.out, POLLIN, 0});
      fds.push_back({child.err, POLLIN, 0});
    }
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) {
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (std::size_t i = running.size(); i-- > 0;) {
      if (drain(running[i], &fds[2 * i])) continue;
      int status = 0;
      while (::waitpid(running[i].pid, &status, 0) < 0 && errno == EINTR) {
      }
      std::string line;
      const PlanOutcome& outcome = *(done[running[i].index] = outcome_of(datasets[running[i].index], status, running[i], line));
      if (ndjson) *ndjson << line << '\n' << std::flush;  // whole lines, as they finish
      failed += outcome.failure.has_value();
      progress->update(++finished, failed);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  for (Running& child : running) {  // interrupted: what is under way is not part of it
    ::kill(-child.pid, SIGKILL);
    for (int fd : {child.out, child.err}) {
      if (fd >= 0) ::close(fd);
    }
    int status = 0;
    ::waitpid(child.pid, &status, 0);
  }
  progress.reset();  // its line cleared before anything else is written
  SizedCorpus corpus;
  corpus.interrupted = g_interrupted != 0;
  for (auto& outcome : done) {
    if (outcome) corpus.outcomes.push_back(std::move(*outcome));
  }
  if (corpus.interrupted) {
    std::cerr << "h5ad-sizer: interrupted: " << corpus.outcomes.size() << " of " << datasets.size()
              << " datasets done\n";
  }
  return corpus;
}

std::ofstream open_for_writing(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw_unreadable(path + ": cannot write: " + std::strerror(errno));
  return out;
}

bool same_job(const ResolvedJob& a, const ResolvedJob& b) {
  return a.runtime.name == b.runtime.name && a.profile.name == b.profile.name &&
         a.profile.multiplier == b.profile.multiplier && a.profile.sparse_x_copies == b.profile.sparse_x_copies &&
         a.profile.dense_x_copies == b.profile.dense_x_copies && a.profile.overhead_bytes == b.profile.overhead_bytes;
}

// The table a plan or check sizes with: the first --buckets, or the default.
std::optional<std::string> first_table(const PlanOptions& options) {
  if (options.buckets.empty()) return std::nullopt;
  return options.buckets.front();
}

}  // namespace

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out = open_for_writing(path);
  out << text;
  out.flush();
  if (!out) throw_unreadable(path + ": cannot write: " + std::strerror(errno));
}

int run_plan(const PlanOptions& options) {
  // The tables first: a configuration error ends the plan before it starts.
  std::vector<std::optional<std::string>> paths;
  if (options.buckets.empty()) paths.emplace_back();
  for (const std::string& path : options.buckets) paths.emplace_back(path);
  std::vector<BucketTable> tables;
  std::vector<ResolvedJob> jobs;
  for (const auto& path : paths) {
    tables.push_back(load_bucket_table(path));
    jobs.push_back(resolve_job(tables.back(), options.runtime, options.profile));
  }
  std::optional<std::size_t> baseline;
  if (options.baseline_bucket) {
    if (*options.baseline_bucket < 1) throw_usage("--baseline-bucket: buckets are numbered from 1");
    baseline = *options.baseline_bucket - 1;
  }
  for (const BucketTable& table : tables) summarize_plan(table, {}, baseline);  // checks the baseline
  const std::vector<std::string> datasets = plan_datasets(options);
  std::ofstream ndjson;
  if (options.ndjson) ndjson = open_for_writing(*options.ndjson);
  // One sizing a distinct job; tables that share one choose their buckets
  // from its required bytes.
  std::vector<SizedCorpus> passes;
  std::vector<std::optional<std::size_t>> pass_of(tables.size());
  bool interrupted = false;
  for (std::size_t i = 0; i < tables.size() && !interrupted; ++i) {
    for (std::size_t j = 0; j < i && !pass_of[i]; ++j) {
      if (same_job(jobs[j], jobs[i])) pass_of[i] = pass_of[j];
    }
    if (pass_of[i]) continue;
    pass_of[i] = passes.size();
    passes.push_back(size_corpus(datasets, options, paths[i], i == 0 && options.ndjson ? &ndjson : nullptr));
    interrupted = passes.back().interrupted;
  }
  // The planned table's summary (what was done of it, when interrupted),
  // then every other table whose sizing was whole.
  std::vector<std::vector<PlanOutcome>> outcomes;
  std::vector<const BucketTable*> summarized;
  for (std::size_t i = 0; i < tables.size() && pass_of[i]; ++i) {
    const SizedCorpus& pass = passes[*pass_of[i]];
    if (i > 0 && pass.interrupted) continue;
    outcomes.push_back(rebucket(tables[i], pass.outcomes));
    summarized.push_back(&tables[i]);
  }
  std::vector<PlanSummary> summaries;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    summaries.push_back(summarize_plan(*summarized[i], outcomes[i], baseline));
  }
  const PlanSummary& summary = summaries.front();
  if (options.html) write_text_file(*options.html, render_plan_html(summary, outcomes.front()));
  if (options.json) {
    nlohmann::ordered_json doc = plan_json(summary);
    if (tables.size() > 1) {
      doc["compared"] = nlohmann::ordered_json::array();
      for (const PlanSummary& each : summaries) doc["compared"].push_back(plan_json(each));
    }
    std::cout << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  } else {
    std::cout << render_plan_table(summary);
    if (tables.size() > 1) std::cout << render_plan_comparison(summaries);
  }
  if (interrupted) return kInterrupted;
  // Only a whole plan makes an expectation.
  if (options.write_expect) {
    open_for_writing(*options.write_expect) << expectation_text(tables.front(), passes.front().outcomes);
  }
  return 0;
}

int run_check(const CheckOptions& options) {
  if (options.corpus.buckets.size() > 1) throw_usage("check: one --buckets (the table the expectation is for)");
  if (options.tolerance && !(*options.tolerance >= 0 && *options.tolerance <= 1000)) {
    throw_usage("--tolerance: a percentage between 0 and 1000");
  }
  std::ifstream in(options.expect);
  if (!in) throw_unreadable(options.expect + ": cannot read the expectation: " + std::strerror(errno));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Expectation expectation = parse_expectation(text, options.expect);
  const BucketTable table = load_bucket_table(first_table(options.corpus));
  const std::vector<std::string> datasets = plan_datasets(options.corpus);
  const SizedCorpus corpus = size_corpus(datasets, options.corpus, first_table(options.corpus), nullptr);
  if (corpus.interrupted) return kInterrupted;
  std::optional<double> tolerance;
  if (options.tolerance) tolerance = *options.tolerance / 100;
  const std::vector<CheckResult> results = compare_expectation(expectation, table, corpus.outcomes, tolerance);
  std::cout << (options.junit ? render_check_junit(results, options.expect)
                              : render_check_lines(results, options.expect));
  const bool differ = std::any_of(results.begin(), results.end(),
                                  [](const CheckResult& r) { return r.kind != CheckResult::Kind::same; });
  return differ ? static_cast<int>(ExitStatus::differences) : 0;
}

}  // namespace h5ad_sizer::cli
