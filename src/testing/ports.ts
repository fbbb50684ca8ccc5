/**
 * Ports handed to test servers (pixd's suite and `startPixd`): below the kernel's ephemeral range (32768 and up
 * on Linux), so the outgoing connections of concurrent tests (which take ephemeral ports) never take one
 * between the probe and the server's listen; picked at random, so two test processes running at once hardly
 * ever pick the same.
 */
import net from 'node:net';

const TEST_PORTS = { from: 20_000, to: 32_000 };

export async function freePort(): Promise<number> {
  for (;;) {
    const port = TEST_PORTS.from + Math.floor(Math.random() * (TEST_PORTS.to - TEST_PORTS.from));
    if (await canListen(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
