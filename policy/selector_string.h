// Label-selector strings as kubectl and the descheduler write them: "k=v,k==v,k!=v,k in (a,b),
// k notin (a),k,!k". The policy keeps them as written; planning parses them once.
#pragma once

#include <string>

#include "model/model.h"

namespace loadshift::policy {

// Parses `text` into a LabelSelector (In/NotIn/Exists/DoesNotExist; "k=v" is In [v], "k!=v" is
// NotIn [v]). Empty text gives the empty selector, which matches every label set. Throws
// std::invalid_argument naming the bad requirement and what was expected.
model::LabelSelector parse_selector_string(const std::string& text);

}  // namespace loadshift::policy
