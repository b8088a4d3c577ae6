#include "h5ad_sizer/buckets/bucket_table.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer {
namespace {

using nlohmann::json;

// AWS Batch documents an "8 GiB" m4.large as offering 7985 MiB to jobs, and
// the ECS agent reserves 32 MiB more. We scale that ratio to each size.
std::uint64_t schedulable_mib(std::uint64_t nominal_gib) {
  return nominal_gib * 1024 * 7985 / 8192 - 32;
}

Bucket default_bucket(int number, std::uint32_t vcpus, std::uint64_t nominal_gib) {
  const std::string name = "machine-" + std::to_string(number);
  return {name, "arn:aws:batch:us-west-2:123456789012:job-definition/h5ad-" + name + ":1", vcpus,
          schedulable_mib(nominal_gib), std::nullopt};
}

[[noreturn]] void bad(const std::string& origin, const std::string& where,
                      const std::string& why) {
  throw_usage(origin + ": " + where + ": " + why);
}

const json& require(const json& object, const char* key, const std::string& origin,
                    const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) bad(origin, where, std::string("missing field \"") + key + "\"");
  return *it;
}

std::uint64_t positive_integer(const json& value, const std::string& origin,
                               const std::string& where) {
  if (!value.is_number_integer() || value.get<std::int64_t>() <= 0) {
    bad(origin, where, "must be a positive integer");
  }
  return value.get<std::uint64_t>();
}

std::string nonempty_string(const json& value, const std::string& origin,
                            const std::string& where) {
  if (!value.is_string() || value.get<std::string>().empty()) {
    bad(origin, where, "must be a non-empty string");
  }
  return value.get<std::string>();
}

// A typo ("multplier") silently ignored would size every job wrongly: every
// object of the table takes only the fields it documents.
void only_known_fields(const json& object, std::initializer_list<const char*> known, const std::string& origin,
                       const std::string& where) {
  for (const auto& item : object.items()) {
    bool found = false;
    std::string list;
    for (const char* name : known) {
      found |= item.key() == name;
      list += list.empty() ? name : std::string(", ") + name;
    }
    if (!found) bad(origin, where, "unknown field \"" + item.key() + "\" (known: " + list + ")");
  }
}

// Bounds on the profile's numbers: far beyond any real job, and small
// enough that a typo (1e20) is refused here as configuration, not taken for
// an overflowing dataset.
constexpr double kMaxMultiplier = 1000;
constexpr double kMaxCopies = 1000;
constexpr std::uint64_t kMaxOverheadMiB = std::uint64_t{1} << 30;  // 1 PiB

bool is_job_definition_arn(const std::string& arn) {
  // arn:<partition>:batch:<region>:<account>:job-definition/<name>[:<revision>]
  static const std::regex pattern(
      R"(arn:aws[a-z-]*:batch:[a-z0-9-]+:[0-9]{12}:job-definition/[A-Za-z0-9_-]{1,128}(:[0-9]+)?)");
  return std::regex_match(arn, pattern);
}

JobProfile parse_profile(const json& value, const std::string& origin, const RuntimeModel& runtime) {
  if (value.is_string()) {
    auto builtin = find_builtin_profile(value.get<std::string>(), runtime);
    if (!builtin) {
      bad(origin, "profile", "unknown profile \"" + value.get<std::string>() +
                                 "\" (built in: " + builtin_profile_names() + ")");
    }
    return *builtin;
  }
  if (!value.is_object()) bad(origin, "profile", "must be a profile name or an object");
  only_known_fields(value, {"name", "multiplier", "overhead_mib", "sparse_x_copies", "dense_x_copies"}, origin,
                    "profile");
  JobProfile profile;
  profile.name = nonempty_string(require(value, "name", origin, "profile"), origin, "profile.name");
  const json& multiplier = require(value, "multiplier", origin, "profile");
  if (!multiplier.is_number() || !(multiplier.get<double>() >= 1.0)) {
    bad(origin, "profile.multiplier", "must be a number >= 1 (a job never needs less than it loads)");
  }
  if (multiplier.get<double>() > kMaxMultiplier) {
    bad(origin, "profile.multiplier", "must be at most " + std::to_string(static_cast<int>(kMaxMultiplier)));
  }
  profile.multiplier = multiplier.get<double>();
  const json& overhead = require(value, "overhead_mib", origin, "profile");
  if (!overhead.is_number_unsigned()) bad(origin, "profile.overhead_mib", "must be a non-negative integer");
  if (overhead.get<std::uint64_t>() > kMaxOverheadMiB) {
    bad(origin, "profile.overhead_mib", "must be at most " + std::to_string(kMaxOverheadMiB));
  }
  profile.overhead_bytes = overhead.get<std::uint64_t>() * kMiB;
  for (auto [key, field] : {std::pair{"sparse_x_copies", &JobProfile::sparse_x_copies},
                            std::pair{"dense_x_copies", &JobProfile::dense_x_copies}}) {
    auto it = value.find(key);
    if (it == value.end()) continue;
    if (!it->is_number() || !(it->get<double>() >= 0)) {
      bad(origin, std::string("profile.") + key, "must be a non-negative number");
    }
    if (it->get<double>() > kMaxCopies) {
      bad(origin, std::string("profile.") + key, "must be at most " + std::to_string(static_cast<int>(kMaxCopies)));
    }
    profile.*field = it->get<double>();
  }
  return profile;
}

Bucket parse_bucket(const json& value, std::size_t index, const std::string& origin) {
  const std::string where = "buckets[" + std::to_string(index) + "]";
  if (!value.is_object()) bad(origin, where, "must be an object");
  only_known_fields(value, {"name", "job_definition", "vcpus", "memory_mib", "price_per_hour"}, origin, where);
  Bucket bucket;
  bucket.name = nonempty_string(require(value, "name", origin, where), origin, where + ".name");
  bucket.job_definition = nonempty_string(require(value, "job_definition", origin, where), origin,
                                          where + ".job_definition");
  if (!is_job_definition_arn(bucket.job_definition)) {
    bad(origin, where + ".job_definition",
        "not a job definition ARN (arn:aws:batch:REGION:ACCOUNT:job-definition/NAME[:REV]): \"" +
            bucket.job_definition + "\"");
  }
  const std::uint64_t vcpus = positive_integer(require(value, "vcpus", origin, where), origin,
                                               where + ".vcpus");
  if (vcpus > 4096) bad(origin, where + ".vcpus", "is implausibly large");
  bucket.vcpus = static_cast<std::uint32_t>(vcpus);
  bucket.memory_mib = positive_integer(require(value, "memory_mib", origin, where), origin,
                                       where + ".memory_mib");
  if (bucket.memory_mib > (std::uint64_t{1} << 40)) {
    bad(origin, where + ".memory_mib", "is implausibly large");
  }
  if (auto it = value.find("price_per_hour"); it != value.end()) {
    if (!it->is_number() || !(it->get<double>() >= 0) || it->get<double>() > 1e6) {
      bad(origin, where + ".price_per_hour", "must be a number from 0 to 1000000");
    }
    bucket.price_per_hour = it->get<double>();
  }
  return bucket;
}

}  // namespace

BucketTable default_bucket_table() {
  BucketTable table;
  table.origin = "built-in";
  table.profile = *find_builtin_profile("migrate", *find_runtime(kDefaultRuntime));
  table.profile_is_builtin = true;
  table.buckets = {default_bucket(1, 2, 8), default_bucket(2, 4, 16), default_bucket(3, 8, 32),
                   default_bucket(4, 8, 64), default_bucket(5, 16, 128)};
  return table;
}

BucketTable parse_bucket_table(const std::string& text, const std::string& origin) {
  json document;
  // JSON lets a key repeat and nlohmann keeps the last: a table edited by
  // hand could then say two things. Refuse, naming the key.
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  const json::parser_callback_t no_duplicate_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == json::parse_event_t::key && !open_objects.empty() &&
        !open_objects.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  document = json::parse(text, no_duplicate_keys, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    // A syntax error, or a number too large for a double (out_of_range.406,
    // found by tests/fuzz/bucket_table_fuzz). Parsed again for nlohmann's
    // reason, "[json.exception.parse_error.101] parse error at ...".
    std::string why = "not JSON";
    try {
      const json again = json::parse(text);
      static_cast<void>(again);
    } catch (const std::exception& error) {
      why = error.what();
      if (const auto start = why.find("] "); start != std::string::npos) why = why.substr(start + 2);
    }
    bad(origin, "not valid JSON", why);
  }
  if (!duplicate.empty()) bad(origin, "\"" + duplicate + "\"", "appears twice in one object");
  if (!document.is_object()) bad(origin, "top level", "must be a JSON object");
  // "bucket_table" is what `h5ad-sizer buckets` says the table came from.
  only_known_fields(document, {"runtime", "profile", "buckets", "bucket_table"}, origin, "top level");

  BucketTable table;
  table.origin = origin;
  std::optional<RuntimeModel> runtime = find_runtime(kDefaultRuntime);
  if (auto it = document.find("runtime"); it != document.end()) {
    if (!it->is_string() || !(runtime = find_runtime(it->get<std::string>()))) {
      bad(origin, "runtime", "must name a modelled runtime (" + runtime_names() + ")");
    }
    table.runtime = runtime->name;
  }
  const json& profile = require(document, "profile", origin, "top level");
  table.profile = parse_profile(profile, origin, *runtime);
  table.profile_is_builtin = profile.is_string();
  const json& buckets = require(document, "buckets", origin, "top level");
  if (!buckets.is_array()) bad(origin, "buckets", "must be an array");
  if (buckets.empty()) bad(origin, "buckets", "must list at least one bucket");
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    table.buckets.push_back(parse_bucket(buckets[i], i, origin));
    for (std::size_t j = 0; j < i; ++j) {
      const std::string where = "buckets[" + std::to_string(i) + "]";
      if (table.buckets[j].name == table.buckets[i].name) {
        bad(origin, where + ".name", "\"" + table.buckets[i].name + "\" is also buckets[" + std::to_string(j) + "]'s");
      }
      if (table.buckets[j].job_definition == table.buckets[i].job_definition) {
        bad(origin, where + ".job_definition", "also buckets[" + std::to_string(j) + "]'s");
      }
    }
    if (i > 0 && table.buckets[i].price_per_hour.has_value() != table.buckets[0].price_per_hour.has_value()) {
      bad(origin, "buckets[" + std::to_string(i) + "].price_per_hour",
          "give a price for every bucket or for none (buckets[0] " +
              std::string(table.buckets[0].price_per_hour ? "has one" : "has none") + ")");
    }
    if (i > 0 && table.buckets[i].memory_mib <= table.buckets[i - 1].memory_mib) {
      bad(origin, "buckets[" + std::to_string(i) + "].memory_mib",
          "must be larger than the previous bucket's (buckets are listed in ascending size)");
    }
  }
  return table;
}

BucketTable load_bucket_table(const std::optional<std::string>& path) {
  std::string file;
  std::string origin;
  if (path) {
    file = *path;
    origin = *path;
  } else if (const char* env = std::getenv("H5AD_SIZER_BUCKETS"); env && *env) {
    file = env;
    origin = std::string(env) + " (from H5AD_SIZER_BUCKETS)";
  } else if (const char* inline_table = std::getenv("H5AD_SIZER_BUCKETS_JSON"); inline_table && *inline_table) {
    // The table itself, for Lambda functions and Batch jobs whose
    // configuration is environment variables rather than files.
    return parse_bucket_table(inline_table, "H5AD_SIZER_BUCKETS_JSON");
  } else {
    return default_bucket_table();
  }
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) {
    throw_usage(origin + ": cannot read the bucket table: " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) throw_usage(origin + ": cannot read the bucket table: is a directory");
  std::ifstream in(file);
  if (!in) throw_usage(origin + ": cannot read the bucket table: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw_usage(origin + ": cannot read the bucket table: " + std::strerror(errno));
  return parse_bucket_table(text.str(), origin);
}

JobProfile BucketTable::profile_for(const RuntimeModel& model) const {
  if (!profile_is_builtin) return profile;
  return *find_builtin_profile(profile.name, model);
}

BucketChoice choose_bucket(const BucketTable& table, std::uint64_t required_bytes,
                           std::size_t min_bucket) {
  const std::size_t first = min_bucket > 0 ? min_bucket - 1 : 0;
  for (std::size_t i = first; i < table.buckets.size(); ++i) {
    if (table.buckets[i].memory_mib * kMiB >= required_bytes) return {i, false};
  }
  return {table.buckets.size() - 1, true};
}

}  // namespace h5ad_sizer
