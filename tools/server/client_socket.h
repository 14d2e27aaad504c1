// The socket of the connection a request came on, to notice a client that hangs up while a
// non-streamed completion is generating (cpp-httplib 0.11, Debian 12's, gives a handler
// neither the socket nor a "closed" flag; a streamed response notices when a write fails).
// Linux: the process's sockets (/proc/self/fd) are matched by their peer and local address.
#pragma once

#include <string>

namespace kvchat::server {

// The descriptor of the accepted TCP connection from remote_addr:remote_port to
// local_port, or -1 when none is found (the caller then cannot notice a hang-up).
int find_client_socket(const std::string& remote_addr, int remote_port, int local_port);

// True when the peer has closed its side or the connection failed (POLLRDHUP, POLLHUP,
// POLLERR); never blocks. Data the client sent ahead (a pipelined request) is not a hang-up.
bool client_hung_up(int fd);

}  // namespace kvchat::server
