// Resource amounts: what nodes offer and pods request.
//
// cpu is held in millicores, every other resource as an exact integer count of its unit (bytes
// for memory and ephemeral-storage, devices for extended resources), exactly as the scheduler
// reads them (Quantity.MilliValue for cpu, Quantity.Value otherwise; both round up).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loadshift::model {

inline constexpr std::string_view kCpu = "cpu";
inline constexpr std::string_view kMemory = "memory";
inline constexpr std::string_view kEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kPods = "pods";

class ResourceList {
 public:
  int64_t cpu_milli = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t pods = 0;

  // The amount of `name` (0 when absent). cpu is returned in millicores.
  int64_t get(std::string_view name) const;
  // Sets `name` to `amount` (cpu in millicores).
  void set(std::string_view name, int64_t amount);
  // Adds `amount` to `name`.
  void add(std::string_view name, int64_t amount);

  // Every other resource (extended resources, hugepages-*, ...), sorted by name, unique.
  const std::vector<std::pair<std::string, int64_t>>& scalars() const { return scalars_; }

  // this += other, resource by resource.
  void add_all(const ResourceList& other);
  // this = max(this, other), resource by resource.
  void max_all(const ResourceList& other);

  // True when every amount is zero.
  bool zero() const;

  // "cpu=500m, memory=1Gi, nvidia.com/gpu=1" (cpu in millicores, bytes shown in binary units
  // when exact). For reasons and reports.
  std::string describe() const;

  friend bool operator==(const ResourceList&, const ResourceList&) = default;

 private:
  std::vector<std::pair<std::string, int64_t>> scalars_;
};

// Formats an amount of `resource` the way a person reads it: cpu "1500m" or "2", bytes "1Gi",
// counts as plain integers.
std::string format_amount(std::string_view resource, int64_t amount);

}  // namespace loadshift::model
