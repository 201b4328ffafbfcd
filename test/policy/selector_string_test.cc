// Label-selector strings: what each requirement form parses into, what it then selects, and the
// message for each kind of mistake.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "policy/selector_string.h"

namespace {

using loadshift::model::LabelSelector;
using loadshift::model::LabelSelectorRequirement;
using loadshift::model::StringMap;
using loadshift::policy::parse_selector_string;

// "key op [values]" per requirement, for compact comparisons.
std::vector<std::string> shape(const LabelSelector& selector) {
  std::vector<std::string> out;
  for (const LabelSelectorRequirement& r : selector.match_expressions) {
    std::string text = r.key + " " + r.op;
    if (!r.values.empty()) {
      text += " [";
      for (size_t i = 0; i < r.values.size(); ++i) text += (i ? "," : "") + r.values[i];
      text += "]";
    }
    out.push_back(text);
  }
  return out;
}

// A label set from pairs.
StringMap labels(std::vector<std::pair<std::string, std::string>> pairs) {
  return StringMap(std::move(pairs));
}

std::string error_of(const std::string& text) {
  try {
    parse_selector_string(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const std::string kExpected =
    " (expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b))";

}  // namespace

TEST_CASE("every requirement form parses into its operator", "[policy][selector]") {
  using V = std::vector<std::string>;
  CHECK(shape(parse_selector_string("a=b")) == V{"a In [b]"});
  CHECK(shape(parse_selector_string("a==b")) == V{"a In [b]"});
  CHECK(shape(parse_selector_string("a!=b")) == V{"a NotIn [b]"});
  CHECK(shape(parse_selector_string("a")) == V{"a Exists"});
  CHECK(shape(parse_selector_string("!a")) == V{"a DoesNotExist"});
  CHECK(shape(parse_selector_string("! a")) == V{"a DoesNotExist"});
  CHECK(shape(parse_selector_string("a in (b,c)")) == V{"a In [b,c]"});
  CHECK(shape(parse_selector_string("a notin (b)")) == V{"a NotIn [b]"});
  CHECK(shape(parse_selector_string("a in(b)")) == V{"a In [b]"});
  CHECK(shape(parse_selector_string("k8s.io/x in ( a , b )")) == V{"k8s.io/x In [a,b]"});
  CHECK(shape(parse_selector_string(" a = b ")) == V{"a In [b]"});
  CHECK(shape(parse_selector_string("a=")) == V{"a In []"});  // the empty value
  CHECK(parse_selector_string("a=").match_expressions[0].values == std::vector<std::string>{""});
  CHECK(shape(parse_selector_string(
            "maip.mxsf.io/node.usage in (training,hybrid),gpu,!cordon,zone!=z1")) ==
        V{"maip.mxsf.io/node.usage In [training,hybrid]", "gpu Exists", "cordon DoesNotExist",
          "zone NotIn [z1]"});
}

TEST_CASE("the empty string is the selector that matches everything", "[policy][selector]") {
  LabelSelector all = parse_selector_string("");
  CHECK(all.match_expressions.empty());
  CHECK(all.match_labels.empty());
  CHECK(loadshift::model::matches(all, StringMap{}));
}

TEST_CASE("parsed selectors select labels as the descheduler does", "[policy][selector]") {
  StringMap training = labels({{"pool", "training"}, {"gpu", "h20"}});
  StringMap inference = labels({{"pool", "inference"}});
  LabelSelector pools = parse_selector_string("pool in (training,hybrid)");
  CHECK(matches(pools, training));
  CHECK_FALSE(matches(pools, inference));
  LabelSelector not_training = parse_selector_string("pool!=training");
  CHECK_FALSE(matches(not_training, training));
  CHECK(matches(not_training, inference));
  CHECK(matches(not_training, StringMap{}));  // NotIn matches a missing key
  LabelSelector gpu = parse_selector_string("gpu,!cordon");
  CHECK(matches(gpu, training));
  CHECK_FALSE(matches(gpu, inference));
  CHECK_FALSE(matches(gpu, labels({{"gpu", "x"}, {"cordon", ""}})));
}

TEST_CASE("bad selector strings name the requirement and what was expected",
          "[policy][selector]") {
  CHECK(error_of("a=b,,c") == "empty requirement in \"a=b,,c\"");
  CHECK(error_of(",") == "empty requirement in \",\"");
  CHECK(error_of("  ") == "empty requirement in \"  \"");
  CHECK(error_of("zone in (a b") == "cannot parse requirement \"zone in (a b\"" + kExpected);
  CHECK(error_of("=x") == "cannot parse requirement \"=x\"" + kExpected);
  CHECK(error_of("a b") == "cannot parse requirement \"a b\"" + kExpected);
  CHECK(error_of("a=b=c") == "cannot parse requirement \"a=b=c\"" + kExpected);
  CHECK(error_of("a=b c") == "cannot parse requirement \"a=b c\"" + kExpected);
  CHECK(error_of("!") == "cannot parse requirement \"!\"" + kExpected);
  CHECK(error_of("!a=b") == "cannot parse requirement \"!a=b\"" + kExpected);
  CHECK(error_of("a in ((b))") == "cannot parse requirement \"a in ((b))\"" + kExpected);
  CHECK(error_of("a innot (b)") == "cannot parse requirement \"a innot (b)\"" + kExpected);
  CHECK(error_of("a(b in (c)") == "cannot parse requirement \"a(b in (c)\"" + kExpected);
  CHECK(error_of("-a=b") == "invalid label key \"-a\"");
  CHECK(error_of("a=-b") == "invalid label value \"-b\"");
  CHECK(error_of("zone in (a b)") == "invalid label value \"a b\"");
  CHECK(error_of("a_ in (b)") == "invalid label key \"a_\"");
  CHECK(error_of("a > 3") == "cannot parse requirement \"a > 3\"" + kExpected);
}

TEST_CASE("valid strings never throw and bad ones always say why", "[policy][selector]") {
  // A sweep over short strings of the grammar's characters: each either parses or throws
  // std::invalid_argument with a non-empty message (never anything else).
  const std::string alphabet = "ab =!(),-/.in";
  std::vector<std::string> texts{""};
  for (int length = 1; length <= 4; ++length) {
    std::vector<std::string> next;
    for (const std::string& t : texts) {
      if (static_cast<int>(t.size()) != length - 1) continue;
      for (char c : alphabet) next.push_back(t + c);
    }
    texts.insert(texts.end(), next.begin(), next.end());
  }
  size_t parsed = 0, rejected = 0;
  for (const std::string& text : texts) {
    try {
      parse_selector_string(text);
      ++parsed;
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).size() > 0);
      ++rejected;
    }
  }
  CHECK(parsed > 0);
  CHECK(rejected > 0);
  CHECK(parsed + rejected == texts.size());
}
