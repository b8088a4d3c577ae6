#include "cli/lambda.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli/failure.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "h5ad_sizer/io/lambda_runtime_api.hpp"

namespace h5ad_sizer::cli {
namespace {

using nlohmann::json;

// Time kept back from an invocation's deadline to post our own error: the
// Runtime API is on loopback, a POST takes well under a millisecond; the
// rest covers a read already under way when the limit is reached.
constexpr auto kDeadlineMargin = std::chrono::milliseconds(500);

[[noreturn]] void bad_event(const std::string& why) { throw_usage("event: " + why); }

std::string string_field(const json& event, const char* key) {
  const json& value = event.at(key);
  if (!value.is_string() || value.get<std::string>().empty()) {
    bad_event(std::string("\"") + key + "\" must be a non-empty string");
  }
  return value.get<std::string>();
}

io::Deadline steady_deadline(std::chrono::system_clock::time_point deadline) {
  const auto left = deadline - std::chrono::system_clock::now();
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(left) - kDeadlineMargin;
}

void serve(const io::LambdaRuntimeApi& api, const io::Invocation& invocation) {
  try {
    SizeOptions options = parse_event(invocation.event);
    if (invocation.deadline) options.deadline = steady_deadline(*invocation.deadline);
    const auto document = size_document(options);
    api.respond(invocation.request_id,
                document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } catch (...) {
    const Failure failure = current_failure();
    if (failure.status == ExitStatus::not_delivered) throw;
    // A read that failed inside HDF5 may have left its error behind.
    h5::take_pending_source_error();
    print_failure(failure);  // CloudWatch keeps stderr
    api.fail(invocation.request_id, error_name(failure.status), failure.message);
  }
}

}  // namespace

SizeOptions parse_event(const std::string& text) {
  const json event = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (event.is_discarded()) bad_event("not valid JSON");
  if (!event.is_object()) bad_event("must be a JSON object such as {\"path\": \"s3://BUCKET/KEY\"}");
  for (const auto& item : event.items()) {
    static const char* const kKnown[] = {"path", "profile", "min_bucket", "runtime", "strict"};
    if (std::find(std::begin(kKnown), std::end(kKnown), item.key()) == std::end(kKnown)) {
      bad_event("unknown field \"" + item.key() +
                "\" (known: path, profile, min_bucket, runtime, strict)");
    }
  }
  if (!event.contains("path")) bad_event("missing \"path\" (the .h5ad to size: s3://BUCKET/KEY or a URL)");
  SizeOptions options;
  options.path = string_field(event, "path");
  if (event.contains("profile")) options.profile = string_field(event, "profile");
  if (event.contains("runtime")) options.runtime = string_field(event, "runtime");
  if (event.contains("min_bucket")) {
    const json& value = event["min_bucket"];
    if (!value.is_number_integer() || value.get<std::int64_t>() < 1) {
      bad_event("\"min_bucket\" must be a positive integer");
    }
    options.min_bucket = value.get<std::size_t>();
  }
  if (event.contains("strict")) {
    if (!event["strict"].is_boolean()) bad_event("\"strict\" must be true or false");
    options.strict = event["strict"].get<bool>();
  }
  return options;
}

int run_lambda() {
  const char* host = std::getenv("AWS_LAMBDA_RUNTIME_API");
  if (host == nullptr || *host == '\0') {
    throw_usage("lambda: AWS_LAMBDA_RUNTIME_API is not set (this command is a Lambda function's "
                "entry point; run it in AWS Lambda or under aws-lambda-rie)");
  }
  const io::LambdaRuntimeApi api(host);
  try {
    load_bucket_table(std::nullopt);  // a bad table fails the init, not every event
  } catch (...) {
    const Failure failure = current_failure();
    api.fail_init(error_name(failure.status), failure.message);
    throw;
  }
  for (;;) {
    const io::Invocation invocation = api.next();
    if (!invocation.trace_id.empty()) ::setenv("_X_AMZN_TRACE_ID", invocation.trace_id.c_str(), 1);
    serve(api, invocation);
  }
}

}  // namespace h5ad_sizer::cli
