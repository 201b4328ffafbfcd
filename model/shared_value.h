// Shared<T>: an immutable value that many objects may hold at once.
//
// The pods of one workload carry the same labels, owner, containers, node affinity and
// tolerations; at 150,000 pods a copy of each per pod is over 200 MiB. A Shared<T> holds its value
// through a pointer, so copies of it (and the decoders' value pool, model/value_pool.h) share one
// value. Reading is as through a `const T&`: `->`, `*`, a conversion to `const T&`, and for
// containers begin/end/size/empty/[] directly. Writing goes through edit(), which first gives this
// holder its own copy when the value is shared (copy on write), so no write through one holder is
// ever seen through another. An empty Shared (default-constructed) reads as T{} and allocates
// nothing. Safe to read from several threads; a Shared itself is not synchronized.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace loadshift::model {

template <typename T>
class Shared {
 public:
  Shared() = default;
  // Holds its own copy of `value` (shared with nobody yet).
  Shared(T value)  // NOLINT(google-explicit-constructor): a Shared is written like its T
      : value_(std::make_shared<T>(std::move(value))) {}
  // Holds `value` as it is, sharing it with every other holder of the pointer; null reads as T{}.
  // `value` must come from pointer() of a Shared (as the value pool's do).
  explicit Shared(std::shared_ptr<const T> value)
      : value_(std::const_pointer_cast<T>(std::move(value))) {}

  Shared& operator=(T value) {
    value_ = std::make_shared<T>(std::move(value));
    return *this;
  }

  const T& get() const { return value_ ? *value_ : empty_value(); }
  operator const T&() const { return get(); }  // NOLINT(google-explicit-constructor)
  const T& operator*() const { return get(); }
  const T* operator->() const { return &get(); }

  // The value for writing: this holder's own copy, made first when another holder shares it.
  T& edit() {
    if (!value_) {
      value_ = std::make_shared<T>();
    } else if (value_.use_count() > 1) {
      value_ = std::make_shared<T>(std::as_const(*value_));
    } else {
      // The only holder: every other one has let go (its count's decrement released what it
      // read), and this acquire makes that happen before the write.
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    return *value_;
  }

  // Whether `other` holds the very same value (not only an equal one).
  bool same_as(const Shared& other) const { return value_ == other.value_; }
  std::shared_ptr<const T> pointer() const { return value_; }

  // For containers: read as the container itself.
  auto begin() const { return get().begin(); }
  auto end() const { return get().end(); }
  size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  decltype(auto) operator[](size_t i) const { return get()[i]; }
  decltype(auto) front() const { return get().front(); }
  decltype(auto) back() const { return get().back(); }

  friend bool operator==(const Shared& a, const Shared& b) {
    return a.value_ == b.value_ || a.get() == b.get();
  }

 private:
  static const T& empty_value() {
    static const T kEmpty{};
    return kEmpty;
  }

  // Made by this class only, never a const object: written in place by edit() when alone.
  std::shared_ptr<T> value_;
};

}  // namespace loadshift::model
