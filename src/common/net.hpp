#pragma once
// Namespace aliases used across the code base (Beast example style).
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace plaudit {
namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;

template <class T>
using Awaitable = boost::asio::awaitable<T>;
}  // namespace plaudit
