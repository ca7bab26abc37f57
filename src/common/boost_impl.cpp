// The one translation unit that compiles Asio and Beast (see BOOST_*_SEPARATE_COMPILATION
// in CMakeLists.txt).
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
