#include "controller/policy_watcher.h"

#include "controller/structured_log.h"

#include <fstream>
#include <sstream>

namespace loadshift::controller {
namespace {

prometheus::Family<prometheus::Counter>& reloads_family(prometheus::Registry& registry) {
  return prometheus::BuildCounter()
      .Name("loadshift_policy_reloads_total")
      .Help("Policy file reloads after a change, by result (failure: the old policy stays)")
      .Register(registry);
}

void log_result(const std::string& path, const policy::LoadResult& result) {
  for (const auto& w : result.warnings) {
    log_line(spdlog::level::warn, "policy warning", {{"policy", path}, {"warning", w.to_string()}});
  }
  for (const auto& e : result.errors) {
    log_line(spdlog::level::err, "policy error", {{"policy", path}, {"error", e.to_string()}});
  }
}

}  // namespace

PolicyWatcher::PolicyWatcher(std::string path, prometheus::Registry& registry)
    : path_(std::move(path)),
      reload_success_(reloads_family(registry).Add({{"result", "success"}})),
      reload_failure_(reloads_family(registry).Add({{"result", "failure"}})),
      valid_(prometheus::BuildGauge()
                 .Name("loadshift_policy_valid")
                 .Help("1 while the policy file's content loaded, 0 while it is refused (the "
                       "previous policy keeps running)")
                 .Register(registry)
                 .Add({})) {}

bool PolicyWatcher::read_file(std::string& bytes, std::string& error) const {
  std::ifstream file(path_, std::ios::binary);
  if (!file) {
    error = "cannot open " + path_;
    return false;
  }
  std::ostringstream text;
  text << file.rdbuf();
  bytes = text.str();
  return true;
}

policy::LoadResult PolicyWatcher::load_initial() {
  std::string bytes, error;
  if (!read_file(bytes, error)) {
    policy::LoadResult result;
    result.errors.push_back(policy::Diagnostic{path_, 0, 0, "", error});
    return result;
  }
  policy::LoadResult result = policy::load_policy(bytes, path_);
  log_result(path_, result);
  last_bytes_ = std::move(bytes);
  if (result.policy) current_ = std::make_shared<const policy::Policy>(*result.policy);
  valid_.Set(result.policy ? 1 : 0);
  return result;
}

PolicyReload PolicyWatcher::poll(policy::LoadResult* out) {
  std::string bytes, error;
  if (!read_file(bytes, error)) {
    // A missing file mid-swap is not a new policy; keep the current one and try again later.
    log_line(spdlog::level::warn, "policy unreadable; the current one stays",
             {{"policy", path_}, {"error", error}});
    return PolicyReload::kUnchanged;
  }
  if (bytes == last_bytes_) return PolicyReload::kUnchanged;
  last_bytes_ = bytes;
  policy::LoadResult result = policy::load_policy(bytes, path_);
  log_result(path_, result);
  PolicyReload outcome = PolicyReload::kRejected;
  if (result.policy) {
    current_ = std::make_shared<const policy::Policy>(*result.policy);
    reload_success_.Increment();
    valid_.Set(1);
    log_line(spdlog::level::info, "policy reloaded", {{"policy", path_}});
    outcome = PolicyReload::kReloaded;
  } else {
    reload_failure_.Increment();
    valid_.Set(0);
    log_line(spdlog::level::err, "policy rejected; the previous one stays",
             {{"policy", path_}, {"errors", std::to_string(result.errors.size())}});
  }
  if (out != nullptr) *out = std::move(result);
  return outcome;
}

}  // namespace loadshift::controller
