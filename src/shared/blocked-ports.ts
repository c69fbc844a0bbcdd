/**
 * The ports fetch refuses to connect to, whatever answers there ("port blocking" in the Fetch
 * standard, https://fetch.spec.whatwg.org/#port-blocking; Node's fetch fails with "bad port"). A
 * URL with one can never be reached: it is a problem of the URL, said as such before connecting.
 */
const BLOCKED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10_080,
])

/** The port of an http(s) `url` that fetch refuses, or undefined (a fine port, or not a URL). */
export function blockedPort(url: string): number | undefined {
  if (!URL.canParse(url)) return undefined
  const {port, protocol} = new URL(url)
  // An empty port is the scheme's default (80, 443): never blocked.
  if (port === '' || (protocol !== 'http:' && protocol !== 'https:')) return undefined
  return BLOCKED_PORTS.has(Number(port)) ? Number(port) : undefined
}
