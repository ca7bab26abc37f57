#pragma once
// The sanitiser's oracle (tests/support/safe_html.hpp) as a test assertion: each problem it
// finds is a failure of the test that asked.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "support/safe_html.hpp"

namespace plaudit::testing_html {

// Fails the test for each problem CheckSafe finds in `html`; returns the output's nesting depth.
inline int AssertSafe(std::string_view html, const Links& links = {}) {
  const SafetyReport report = CheckSafe(html, links);
  for (const std::string& problem : report.problems) {
    ADD_FAILURE() << problem;
  }
  return report.depth;
}

}  // namespace plaudit::testing_html
