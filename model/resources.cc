#include "model/resources.h"

#include <algorithm>

namespace loadshift::model {
namespace {

int64_t* fixed_field(ResourceList& list, std::string_view name) {
  if (name == kCpu) return &list.cpu_milli;
  if (name == kMemory) return &list.memory;
  if (name == kEphemeralStorage) return &list.ephemeral_storage;
  if (name == kPods) return &list.pods;
  return nullptr;
}

bool is_byte_resource(std::string_view name) {
  return name == kMemory || name == kEphemeralStorage || name.starts_with("hugepages-");
}

}  // namespace

int64_t ResourceList::get(std::string_view name) const {
  if (const int64_t* field = fixed_field(const_cast<ResourceList&>(*this), name)) return *field;
  auto it = std::lower_bound(scalars_.begin(), scalars_.end(), name,
                             [](const auto& entry, std::string_view key) { return entry.first < key; });
  return it != scalars_.end() && it->first == name ? it->second : 0;
}

void ResourceList::set(std::string_view name, int64_t amount) {
  if (int64_t* field = fixed_field(*this, name)) {
    *field = amount;
    return;
  }
  auto it = std::lower_bound(scalars_.begin(), scalars_.end(), name,
                             [](const auto& entry, std::string_view key) { return entry.first < key; });
  if (it != scalars_.end() && it->first == name) {
    it->second = amount;
  } else {
    scalars_.insert(it, {std::string(name), amount});
  }
}

void ResourceList::add(std::string_view name, int64_t amount) { set(name, get(name) + amount); }

void ResourceList::add_all(const ResourceList& other) {
  cpu_milli += other.cpu_milli;
  memory += other.memory;
  ephemeral_storage += other.ephemeral_storage;
  pods += other.pods;
  for (const auto& [name, amount] : other.scalars_) add(name, amount);
}

void ResourceList::max_all(const ResourceList& other) {
  cpu_milli = std::max(cpu_milli, other.cpu_milli);
  memory = std::max(memory, other.memory);
  ephemeral_storage = std::max(ephemeral_storage, other.ephemeral_storage);
  pods = std::max(pods, other.pods);
  for (const auto& [name, amount] : other.scalars_) set(name, std::max(get(name), amount));
}

bool ResourceList::zero() const {
  if (cpu_milli != 0 || memory != 0 || ephemeral_storage != 0 || pods != 0) return false;
  return std::all_of(scalars_.begin(), scalars_.end(),
                     [](const auto& entry) { return entry.second == 0; });
}

std::string ResourceList::describe() const {
  std::string out;
  auto append = [&out](std::string_view name, int64_t amount) {
    if (amount == 0) return;
    if (!out.empty()) out += ", ";
    out += name;
    out += '=';
    out += format_amount(name, amount);
  };
  append(kCpu, cpu_milli);
  append(kMemory, memory);
  append(kEphemeralStorage, ephemeral_storage);
  append(kPods, pods);
  for (const auto& [name, amount] : scalars_) append(name, amount);
  return out.empty() ? "nothing" : out;
}

std::string format_amount(std::string_view resource, int64_t amount) {
  if (resource == kCpu) {
    if (amount % 1000 == 0) return std::to_string(amount / 1000);
    return std::to_string(amount) + "m";
  }
  if (is_byte_resource(resource) && amount != 0) {
    static constexpr std::string_view kUnits[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < 6; ++i) {
      int64_t unit = int64_t{1} << (10 * (6 - i));
      if (amount % unit == 0) return std::to_string(amount / unit) + std::string(kUnits[i]);
    }
  }
  return std::to_string(amount);
}

}  // namespace loadshift::model
