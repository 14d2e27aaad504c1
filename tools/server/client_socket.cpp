#include "server/client_socket.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

namespace kvchat::server {
namespace {

// The address and port of a socket address, for IPv4 and IPv6 (a v4-mapped v6 address
// as its v4 text, the way httplib reports remote_addr).
bool address_of(const sockaddr_storage& sa, std::string& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (sa.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&sa);
    if (!inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text))) return false;
    port = ntohs(v4->sin_port);
  } else if (sa.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&sa);
    if (!inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text))) return false;
    port = ntohs(v6->sin6_port);
    if (std::strncmp(text, "::ffff:", 7) == 0 && std::strchr(text + 7, '.')) {
      addr = text + 7;
      return true;
    }
  } else {
    return false;
  }
  addr = text;
  return true;
}

}  // namespace

int find_client_socket(const std::string& remote_addr, int remote_port, int local_port) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int found = -1;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    struct stat st {};
    if (fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage peer{}, local{};
    socklen_t peer_len = sizeof(peer), local_len = sizeof(local);
    if (getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0 ||
        getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &local_len) != 0) {
      continue;
    }
    std::string peer_addr, local_addr;
    int peer_port = 0, local_port_of_fd = 0;
    if (!address_of(peer, peer_addr, peer_port) ||
        !address_of(local, local_addr, local_port_of_fd)) {
      continue;
    }
    if (peer_port == remote_port && local_port_of_fd == local_port && peer_addr == remote_addr) {
      found = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

bool client_hung_up(int fd) {
  if (fd < 0) return false;
  pollfd p{};
  p.fd = fd;
  p.events = POLLRDHUP;
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

}  // namespace kvchat::server
