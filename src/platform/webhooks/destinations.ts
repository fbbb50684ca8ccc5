/**
 * Where pixd may send a callback. A registration calls the URL it is given and reports what answered, so
 * without a policy it probes the institution's own network: PostgreSQL, Redis, pixd's operator API on
 * loopback, a cloud's metadata service. Production refuses loopback, private, link-local, shared (CGNAT),
 * multicast, unspecified and metadata addresses; the sandbox allows loopback (integrators run receivers on
 * their own machine) and refuses the rest. `PIXD_WEBHOOK_ALLOW` lists CIDR ranges an operator admits anyway.
 *
 * The check runs on the addresses a connection actually uses: IP literals before connecting, names in the
 * agent's `lookup`, on every connection, so a name that resolves to a public address at registration and
 * to a private one later (DNS rebinding) is still refused.
 */
import dns from 'node:dns';
import net from 'node:net';

export type DestinationCategory =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'unspecified'
  | 'metadata'
  | 'reserved';

/** Named for a person, never with what (if anything) answered there. */
export const CATEGORY_TEXT: Record<DestinationCategory, string> = {
  loopback: 'destino na interface de loopback',
  private: 'destino em rede privada',
  'link-local': 'destino em endereço link-local',
  shared: 'destino em espaço de endereços compartilhado (CGNAT)',
  multicast: 'destino em endereço multicast',
  unspecified: 'destino em endereço não especificado',
  metadata: 'destino no serviço de metadados da nuvem',
  reserved: 'destino em endereço reservado',
};

const RANGES: [DestinationCategory, string, number, 'ipv4' | 'ipv6'][] = [
  ['metadata', '169.254.169.254', 32, 'ipv4'],
  ['metadata', 'fd00:ec2::254', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['shared', '100.64.0.0', 10, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
];

const BLOCKS = RANGES.map(([category, address, prefix, family]) => {
  const list = new net.BlockList();
  list.addSubnet(address, prefix, family);
  return { category, list };
});

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as the IPv4 address it stands for. */
function unmapped(address: string): { ip: string; family: 'ipv4' | 'ipv6' } {
  const ip = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  return { ip, family: net.isIPv4(ip) ? 'ipv4' : 'ipv6' };
}

/** The category of a non-public address; undefined for a public one. IPv4-mapped IPv6 counts as its IPv4. */
export function categoryOf(address: string): DestinationCategory | undefined {
  const { ip, family } = unmapped(address);
  return BLOCKS.find((b) => b.list.check(ip, family))?.category;
}

export class ForbiddenDestination extends Error {
  readonly code = 'EDESTINATION_FORBIDDEN';
  constructor(readonly category: DestinationCategory) {
    super(CATEGORY_TEXT[category]);
  }
}

export interface DestinationPolicy {
  /** Why an address may not be called, or undefined when it may. */
  refusal(address: string): ForbiddenDestination | undefined;
}

export function destinationPolicy(options: {
  environment: 'sandbox' | 'production';
  allow: string[];
}): DestinationPolicy {
  const allowed = new net.BlockList();
  for (const cidr of options.allow) {
    const [address, prefix] = cidr.split('/');
    const family = net.isIPv4(address) ? 'ipv4' : 'ipv6';
    allowed.addSubnet(address, Number(prefix ?? (family === 'ipv4' ? 32 : 128)), family);
  }
  return {
    refusal(address) {
      const { ip, family } = unmapped(address);
      if (allowed.check(ip, family)) return undefined;
      const category = categoryOf(ip);
      if (!category) return undefined;
      if (category === 'loopback' && options.environment === 'sandbox') return undefined;
      return new ForbiddenDestination(category);
    },
  };
}

/** Parses PIXD_WEBHOOK_ALLOW: comma-separated CIDR ranges (a bare address is one host). */
export function parseAllowList(raw: string | undefined): string[] | { error: string } {
  const entries = (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = net.isIP(address);
    const max = family === 4 ? 32 : 128;
    const bits = prefix === undefined ? max : Number(prefix);
    if (!family || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > max)
      return { error: `"${entry}" is not an IP address or CIDR range` };
  }
  return entries;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * An agent `lookup` that resolves as usual, then refuses the connection when any address is forbidden
 * (all are checked: the socket may try each).
 */
export function guardedLookup(policy: DestinationPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as dns.LookupAddress[];
      const refused = list.map((a) => policy.refusal(a.address)).find(Boolean);
      if (refused) return callback(refused as NodeJS.ErrnoException, []);
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
