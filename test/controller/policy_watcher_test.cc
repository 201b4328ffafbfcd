#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "controller/policy_watcher.h"

namespace fs = std::filesystem;
using loadshift::controller::PolicyReload;
using loadshift::controller::PolicyWatcher;

namespace {

std::string policy_text(int per_node) {
  return "apiVersion: descheduler/v1alpha2\n"
         "kind: DeschedulerPolicy\n"
         "maxNoOfPodsToEvictPerNode: " +
         std::to_string(per_node) +
         "\n"
         "profiles:\n"
         "- name: taints\n"
         "  plugins:\n"
         "    deschedule:\n"
         "      enabled: [RemovePodsViolatingNodeTaints]\n";
}

// A directory laid out as kubelet lays out a ConfigMap volume: the visible file is a symlink
// through `..data`, which points at a timestamped directory; an update writes a new directory
// and swaps `..data` atomically.
class ConfigMapVolume {
 public:
  ConfigMapVolume() {
    std::random_device seed;
    root_ = fs::temp_directory_path() / ("loadshift-cm-" + std::to_string(seed()));
    fs::create_directories(root_);
  }
  ~ConfigMapVolume() { fs::remove_all(root_); }

  void publish(const std::string& text) {
    fs::path version = root_ / ("..2026_11_22_" + std::to_string(++version_));
    fs::create_directory(version);
    std::ofstream(version / "policy.yaml") << text;
    fs::path next = root_ / "..data_tmp";
    fs::create_directory_symlink(version.filename(), next);
    fs::rename(next, root_ / "..data");  // atomic swap, as kubelet does
    if (!fs::exists(fs::symlink_status(path()))) {
      fs::create_symlink(fs::path("..data") / "policy.yaml", path());
    }
  }
  std::string path() const { return (root_ / "policy.yaml").string(); }

 private:
  fs::path root_;
  int version_ = 0;
};

double counter(prometheus::Registry& registry, const std::string& result) {
  for (const auto& family : registry.Collect()) {
    if (family.name != "loadshift_policy_reloads_total") continue;
    for (const auto& metric : family.metric) {
      for (const auto& label : metric.label) {
        if (label.name == "result" && label.value == result) return metric.counter.value;
      }
    }
  }
  return -1;
}

}  // namespace

TEST_CASE("policy watcher reloads a ConfigMap volume update and keeps the old policy on error",
          "[controller][reload]") {
  ConfigMapVolume volume;
  volume.publish(policy_text(5));
  prometheus::Registry registry;
  PolicyWatcher watcher(volume.path(), registry);
  REQUIRE(watcher.load_initial().ok());
  REQUIRE(watcher.current());
  CHECK(watcher.current()->max_pods_to_evict_per_node == 5u);
  CHECK(watcher.poll() == PolicyReload::kUnchanged);

  volume.publish(policy_text(7));
  CHECK(watcher.poll() == PolicyReload::kReloaded);
  CHECK(watcher.current()->max_pods_to_evict_per_node == 7u);
  CHECK(counter(registry, "success") == 1);

  // An invalid update: the old policy keeps running, the failure is counted once.
  std::shared_ptr<const loadshift::policy::Policy> before = watcher.current();
  volume.publish(policy_text(7) + "unknownTopLevel: 1\n");
  loadshift::policy::LoadResult result;
  CHECK(watcher.poll(&result) == PolicyReload::kRejected);
  REQUIRE_FALSE(result.errors.empty());
  CHECK_THAT(result.errors[0].message, Catch::Contains("unknown field \"unknownTopLevel\""));
  CHECK(watcher.current() == before);
  CHECK(watcher.poll() == PolicyReload::kUnchanged);
  CHECK(counter(registry, "failure") == 1);

  volume.publish(policy_text(9));
  CHECK(watcher.poll() == PolicyReload::kReloaded);
  CHECK(watcher.current()->max_pods_to_evict_per_node == 9u);
  CHECK(counter(registry, "success") == 2);
  CHECK(before->max_pods_to_evict_per_node == 7u);  // a running cycle's copy is untouched
}

TEST_CASE("policy watcher refuses an invalid initial policy", "[controller][reload]") {
  ConfigMapVolume volume;
  volume.publish("apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n");
  prometheus::Registry registry;
  PolicyWatcher watcher(volume.path(), registry);
  loadshift::policy::LoadResult result = watcher.load_initial();
  CHECK_FALSE(result.ok());
  CHECK_FALSE(watcher.current());
}
