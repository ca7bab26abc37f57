#pragma once
// Text put into HTML (pages plauditd writes itself, mails' HTML parts): &, <, >, " and '
// become entities, so the text is text in element content and in quoted attributes.
#include <string>
#include <string_view>

namespace plaudit::text {

std::string EscapeHtml(std::string_view text);

}  // namespace plaudit::text
