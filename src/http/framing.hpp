#pragma once
// How a request's Transfer-Encoding frames its body (RFC 9112 §6.1, §6.3).
//
// Beast reads a body as chunked only when the last coding is "chunked", and otherwise, with no
// Content-Length, as empty: a request with "Transfer-Encoding: chunked, identity" or
// "xchunked" would then have its body parsed as the next request on the connection (request
// smuggling through any proxy that frames it differently). The server refuses those before
// reading a byte of the body, and closes the connection.
#include "http/request.hpp"

namespace plaudit::http {

enum class Framing {
  kNoTransferEncoding,  // Content-Length (or no body): Beast's own rules apply
  kChunked,             // exactly "chunked"
  kUnknowable,          // present but not final-chunked, repeated chunked, or HTTP/1.0: 400
  kUnsupported,         // a coding before chunked that this server does not decode: 501
};

Framing TransferFraming(const RawRequest& request);

}  // namespace plaudit::http
