// ObjectList<T>: a vector of objects whose copies share the objects themselves.
//
// Copying a list copies pointers (a Snapshot copied out of the watch cache costs a pointer per
// pod, not a deep copy of 150,000 pods). Writing through a list to an object another list
// shares first gives this list its own copy of that object (copy on write), so a list behaves as
// a std::vector<T> of values: no write through one copy is ever seen through another.
// Reading through a const list never copies; reading an element through a non-const list that
// shares it does (use a const reference to read).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace loadshift::model {

template <typename T>
class ObjectList {
 public:
  ObjectList() = default;
  ObjectList(std::initializer_list<T> items) {
    items_.reserve(items.size());
    for (const T& item : items) items_.push_back(std::make_shared<T>(item));
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void reserve(size_t n) { items_.reserve(n); }
  void clear() { items_.clear(); }

  const T& operator[](size_t i) const { return *items_[i]; }
  T& operator[](size_t i) { return own(items_[i]); }
  const T& front() const { return *items_.front(); }
  T& front() { return own(items_.front()); }
  const T& back() const { return *items_.back(); }
  T& back() { return own(items_.back()); }

  void push_back(const T& item) { items_.push_back(std::make_shared<T>(item)); }
  void push_back(T&& item) { items_.push_back(std::make_shared<T>(std::move(item))); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    items_.push_back(std::make_shared<T>(std::forward<Args>(args)...));
    return *items_.back();
  }
  void pop_back() { items_.pop_back(); }
  // Appends every object of `other`, shared (no object is copied).
  void append(const ObjectList& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
  }
  // Appends every object of `other`, moved out of it (`other` ends empty).
  void append(ObjectList&& other) {
    items_.insert(items_.end(), std::make_move_iterator(other.items_.begin()),
                  std::make_move_iterator(other.items_.end()));
    other.items_.clear();
  }

  // Hands each object to fn(ObjectList&&) in a list of its own, in order, and ends empty. The
  // objects are neither copied nor moved, only their pointers: moving each object into a new
  // one would leave the old ones' blocks as holes among the objects' own strings.
  template <typename Fn>
  void split_each(Fn&& fn) {
    for (std::shared_ptr<T>& item : items_) {
      ObjectList one;
      one.items_.push_back(std::move(item));
      fn(std::move(one));
    }
    items_.clear();
  }

  template <bool kConst>
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<kConst, const T&, T&>;
    using pointer = std::conditional_t<kConst, const T*, T*>;
    using Slot = std::conditional_t<kConst, const std::shared_ptr<T>*, std::shared_ptr<T>*>;

    Iterator() = default;
    explicit Iterator(Slot slot) : slot_(slot) {}
    reference operator*() const {
      if constexpr (kConst) {
        return **slot_;
      } else {
        return own(*slot_);
      }
    }
    pointer operator->() const { return &**this; }
    reference operator[](difference_type n) const { return *(*this + n); }
    Iterator& operator++() { ++slot_; return *this; }
    Iterator operator++(int) { Iterator old = *this; ++slot_; return old; }
    Iterator& operator--() { --slot_; return *this; }
    Iterator operator--(int) { Iterator old = *this; --slot_; return old; }
    Iterator& operator+=(difference_type n) { slot_ += n; return *this; }
    Iterator& operator-=(difference_type n) { slot_ -= n; return *this; }
    friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
    friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
    friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return a.slot_ - b.slot_;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.slot_ == b.slot_; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.slot_ <=> b.slot_; }

   private:
    Slot slot_ = nullptr;
  };
  using iterator = Iterator<false>;
  using const_iterator = Iterator<true>;

  iterator begin() { return iterator(items_.data()); }
  iterator end() { return iterator(items_.data() + items_.size()); }
  const_iterator begin() const { return const_iterator(items_.data()); }
  const_iterator end() const { return const_iterator(items_.data() + items_.size()); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }

 private:
  // The object in `slot`, made this list's own first when another list shares it.
  static T& own(std::shared_ptr<T>& slot) {
    if (slot.use_count() > 1) slot = std::make_shared<T>(*slot);
    return *slot;
  }
  std::vector<std::shared_ptr<T>> items_;
};

}  // namespace loadshift::model
