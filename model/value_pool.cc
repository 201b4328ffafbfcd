#include "model/value_pool.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loadshift::model {
namespace {

// ---- hashes of the pooled kinds (equality is their operator==) ---------------------------------

// Declared first, so the templates below find every overload.
void mix(size_t& seed, size_t value);
void mix(size_t& seed, const std::string& text);
void mix(size_t& seed, TaintEffect effect);
void mix(size_t& seed, int64_t value);
void mix(size_t& seed, const OwnerReference& owner);
void mix(size_t& seed, const Toleration& toleration);
void mix(size_t& seed, const NodeSelectorRequirement& requirement);
void mix(size_t& seed, const NodeSelectorTerm& term);
void mix(size_t& seed, const PreferredSchedulingTerm& term);
void mix(size_t& seed, const NodeAffinity& affinity);
void mix(size_t& seed, const ResourceList& resources);
void mix(size_t& seed, const Container& container);
template <typename T>
void mix(size_t& seed, const std::optional<T>& value);
template <typename T>
void mix(size_t& seed, const std::vector<T>& values);
template <typename A, typename B>
void mix(size_t& seed, const std::pair<A, B>& pair);

void mix(size_t& seed, size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}
void mix(size_t& seed, const std::string& text) {
  mix(seed, std::hash<std::string>{}(text));
}
template <typename T>
void mix(size_t& seed, const std::optional<T>& value) {
  mix(seed, static_cast<size_t>(value.has_value()));
  if (value) mix(seed, *value);
}
template <typename T>
void mix(size_t& seed, const std::vector<T>& values) {
  mix(seed, values.size());
  for (const T& value : values) mix(seed, value);
}
template <typename A, typename B>
void mix(size_t& seed, const std::pair<A, B>& pair) {
  mix(seed, pair.first);
  mix(seed, pair.second);
}
void mix(size_t& seed, TaintEffect effect) {
  mix(seed, static_cast<size_t>(effect));
}
void mix(size_t& seed, int64_t value) {
  mix(seed, static_cast<size_t>(value));
}
void mix(size_t& seed, const OwnerReference& owner) {
  mix(seed, owner.api_version);
  mix(seed, owner.kind);
  mix(seed, owner.name);
  mix(seed, owner.uid);
  mix(seed, static_cast<size_t>(owner.controller));
}
void mix(size_t& seed, const Toleration& toleration) {
  mix(seed, toleration.key);
  mix(seed, static_cast<size_t>(toleration.op));
  mix(seed, toleration.value);
  mix(seed, toleration.effect);
  mix(seed, toleration.toleration_seconds);
}
void mix(size_t& seed, const NodeSelectorRequirement& requirement) {
  mix(seed, requirement.key);
  mix(seed, static_cast<size_t>(requirement.op));
  mix(seed, requirement.values);
}
void mix(size_t& seed, const NodeSelectorTerm& term) {
  mix(seed, term.match_expressions);
  mix(seed, term.match_fields);
}
void mix(size_t& seed, const PreferredSchedulingTerm& term) {
  mix(seed, static_cast<size_t>(term.weight));
  mix(seed, term.preference);
}
void mix(size_t& seed, const NodeAffinity& affinity) {
  mix(seed, affinity.required);
  mix(seed, affinity.preferred);
}
void mix(size_t& seed, const ResourceList& resources) {
  mix(seed, resources.cpu_milli);
  mix(seed, resources.memory);
  mix(seed, resources.ephemeral_storage);
  mix(seed, resources.pods);
  mix(seed, resources.scalars());
}
void mix(size_t& seed, const Container& container) {
  mix(seed, container.name);
  mix(seed, container.image);
  mix(seed, container.requests);
  mix(seed, container.limits);
  mix(seed, static_cast<size_t>(container.restart_always));
}

template <typename T>
size_t hash_of(const T& value) {
  size_t seed = 0;
  mix(seed, value);
  return seed;
}

template <typename T>
bool is_empty(const std::vector<T>& values) {
  return values.empty();
}
bool is_empty(const NodeAffinity& affinity) {
  return !affinity.required && affinity.preferred.empty();
}

// ---- the pool ------------------------------------------------------------------------------

std::atomic<size_t> sweeps{0};

template <typename T>
class Pool {
 public:
  // An equal value already pooled, or `value` itself, now pooled.
  Shared<T> share(const Shared<T>& value) {
    if (!value.pointer()) return value;
    if (is_empty(*value)) return Shared<T>();  // an empty value needs no allocation at all
    size_t hash = hash_of(*value);
    std::lock_guard lock(mutex_);
    auto [first, last] = values_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
      if (*it->second == *value) return Shared<T>(it->second);
    }
    if (values_.size() >= next_sweep_) sweep();
    values_.emplace(hash, value.pointer());
    return value;
  }

  size_t size() {
    std::lock_guard lock(mutex_);
    return values_.size();
  }

 private:
  // Drops what only the pool holds. A count of 1 cannot rise meanwhile: every other way to the
  // value is an object that holds it, and then the count is 2 or more.
  void sweep() {
    std::erase_if(values_, [](const auto& entry) { return entry.second.use_count() == 1; });
    next_sweep_ = std::max<size_t>(2 * values_.size(), kFirstSweep);
    sweeps.fetch_add(1, std::memory_order_relaxed);
  }

  static constexpr size_t kFirstSweep = 1024;
  std::mutex mutex_;
  std::unordered_multimap<size_t, std::shared_ptr<const T>> values_;
  size_t next_sweep_ = kFirstSweep;
};

// Never destroyed: objects in other static storage may still release values at exit.
template <typename T>
Pool<T>& pool() {
  static Pool<T>* const instance = new Pool<T>();
  return *instance;
}

}  // namespace

void share_alike(Pod& pod) {
  using Labels = std::vector<std::pair<std::string, std::string>>;
  pod.meta.labels.items_ = pool<Labels>().share(pod.meta.labels.items_);
  pod.owners = pool<std::vector<OwnerReference>>().share(pod.owners);
  pod.containers = pool<std::vector<Container>>().share(pod.containers);
  pod.tolerations = pool<std::vector<Toleration>>().share(pod.tolerations);
  pod.node_affinity = pool<NodeAffinity>().share(pod.node_affinity);
}

ValuePoolStats value_pool_stats() {
  ValuePoolStats stats;
  stats.values = pool<std::vector<std::pair<std::string, std::string>>>().size() +
                 pool<std::vector<OwnerReference>>().size() +
                 pool<std::vector<Container>>().size() + pool<std::vector<Toleration>>().size() +
                 pool<NodeAffinity>().size();
  stats.sweeps = sweeps.load(std::memory_order_relaxed);
  return stats;
}

}  // namespace loadshift::model
