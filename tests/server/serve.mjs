// kvchat-cli serve for the SDK tests: started on a port the OS chooses (the process and
// the port it prints), and stopped with SIGTERM (its exit status).
import { spawn } from 'node:child_process';

export function startServe(args) {
  const server = spawn(process.env.KVCHAT_CLI, ['serve', '--port', '0', ...args],
                       { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/^port (\d+)$/m);
      if (m) resolve(Number(m[1]));
    });
    server.on('exit', (code) => reject(new Error('serve exited ' + code)));
  });
  return { server, port };
}

export function stopServe(server) {
  const exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
  server.kill('SIGTERM');
  return exited;
}
