#include "test/run/run_fixture.h"

#include <prometheus/text_serializer.h>

namespace loadshift::testing {

std::string scrape(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

}  // namespace loadshift::testing
