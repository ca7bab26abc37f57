#pragma once
// Cross-site request forgery: a browser sends the session cookie with a request another site
// made it send. API.md "Conventions": a write (POST, PUT, PATCH, DELETE) that carries no
// Authorization header (so the cookie is what authenticates it, or it is a sign-in or setup
// that sets the cookie) is refused when its Origin — or, without one, its Referer's origin —
// is present and is neither plauditd's own origin nor one of --sites.
//
// Why a missing Origin and Referer pass: browsers send Origin on every cross-origin request
// whose method is not GET or HEAD (and on same-origin ones too), so only non-browser clients
// omit both, and those cannot be tricked into sending someone's cookie. Why "null" is refused:
// sandboxed frames, data: URLs and some redirects send it, and none of them is a site we know.
// Bearer requests are not checked: a page cannot make a browser add an Authorization header.
#include <optional>
#include <string>
#include <string_view>

#include "common/web_origin.hpp"
#include "http/request.hpp"

namespace plaudit::http {

// Whether the request is a cookie-borne write from a site that is neither plauditd's own
// origin (its Host — as the client sent it, when a trusted proxy says so — with https when
// request.https, else http) nor one of `sites`.
bool IsCrossSiteWrite(const Request& request, const SiteList& sites);

// plauditd's own origin as this request reached it (Host, or a trusted proxy's
// X-Forwarded-Host, with https when request.https); nullopt without a usable Host.
std::optional<std::string> OwnOrigin(const Request& request);

}  // namespace plaudit::http
