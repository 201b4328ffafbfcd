// ObjectList: copies share their objects, and a write never shows through another copy.
#include <catch2/catch.hpp>

#include <string>

#include "model/object_list.h"

using loadshift::model::ObjectList;

namespace {

struct Item {
  std::string name;
  int value = 0;
};

}  // namespace

TEST_CASE("ObjectList copies share objects until one is written") {
  ObjectList<Item> a = {{"x", 1}, {"y", 2}};
  REQUIRE(a.size() == 2);
  const ObjectList<Item> b = a;  // a copy of pointers
  CHECK(&b[0] == &std::as_const(a)[0]);
  CHECK(&b[1] == &std::as_const(a)[1]);

  a[0].value = 10;  // a gets its own x; b's stays
  CHECK(a[0].value == 10);
  CHECK(b[0].value == 1);
  CHECK(&b[0] != &std::as_const(a)[0]);
  CHECK(&b[1] == &std::as_const(a)[1]);  // y is still shared

  for (Item& item : a) item.name += "!";  // writing through iterators copies too
  CHECK(a[1].name == "y!");
  CHECK(b[1].name == "y");

  SECTION("reading through a const list never copies") {
    const ObjectList<Item>& view = a;
    ObjectList<Item> c = a;
    for (const Item& item : view) CHECK(!item.name.empty());
    CHECK(&std::as_const(c)[0] == &view[0]);
  }
  SECTION("append shares, emplace_back and push_back own their object") {
    ObjectList<Item> c;
    c.append(b);
    CHECK(&std::as_const(c)[0] == &b[0]);
    Item& z = c.emplace_back(Item{"z", 3});
    z.value = 4;
    CHECK(c.back().value == 4);
    c.push_back(Item{"w", 5});
    CHECK(c.size() == 4);
    c.pop_back();
    CHECK(c.size() == 3);
    CHECK(b.size() == 2);
    ObjectList<Item> moved;
    moved.append(std::move(c));
    CHECK(moved.size() == 3);
    CHECK(c.empty());
  }
}
