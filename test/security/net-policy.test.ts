import { describe, expect, test } from 'vitest';
import { LoomError } from '../../src/core/errors';
import { blockedReason, refuseWithoutLookup, resolvePublicAddress } from '../../src/core/security/net-policy';

async function refusal(host: string): Promise<string> {
  try {
    await resolvePublicAddress(host);
  } catch (err) {
    expect(err).toBeInstanceOf(LoomError);
    return (err as LoomError).message;
  }
  throw new Error(`${host} was allowed`);
}

describe('resolvePublicAddress refuses every non-public address class', () => {
  test.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.254', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['100.64.0.1', 'a shared (CGNAT) address'],
    ['100.127.255.255', 'a shared (CGNAT) address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['::ffff:127.0.0.1', 'a loopback address (IPv4-mapped address)'],
    ['::ffff:169.254.169.254', 'a cloud metadata address (IPv4-mapped address)'],
    ['::ffff:10.0.0.1', 'a private address (IPv4-mapped address)'],
    ['64:ff9b::a00:1', 'a private address (NAT64 address)'],
    ['2002:c0a8:101::', 'a private address (6to4 address)'],
  ])('%s: %s', async (host, reason) => {
    const message = await refusal(host);
    expect(message).toContain(`"${host}"`);
    expect(message).toContain(reason);
  });

  test.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['3232235777', '192.168.1.1'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['127.0.0.1.', '127.0.0.1'],
  ])('the literal spelling %s is normalised to %s and refused', async (host, normal) => {
    expect(await refusal(host)).toContain(`${normal} is`);
  });

  test('names are refused after DNS when any address they resolve to is not public', async () => {
    expect(await refusal('localhost')).toMatch(/"localhost": it resolves to (127\.0\.0\.1|::1), a loopback address/);
  });

  test('cloud metadata host names are refused by name', async () => {
    expect(await refusal('metadata.google.internal')).toContain('cloud metadata endpoint');
    expect(await refusal('METADATA.Google.Internal.')).toContain('cloud metadata endpoint');
  });

  test('unresolvable and malformed hosts give one clear line', async () => {
    // ENOTFOUND with a resolver, EAI_AGAIN on a machine without one.
    expect(await refusal('no-such-host.invalid')).toMatch(/^Could not resolve host "no-such-host\.invalid" \((ENOTFOUND|EAI_AGAIN)\)\.$/);
    expect(await refusal('bad host')).toBe('"bad host" is not a valid host name.');
  });

  test('public addresses are returned with their family', async () => {
    await expect(resolvePublicAddress('93.184.216.34')).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    await expect(resolvePublicAddress('172.32.0.1')).resolves.toEqual({ address: '172.32.0.1', family: 4 });
    await expect(resolvePublicAddress('100.128.0.1')).resolves.toEqual({ address: '100.128.0.1', family: 4 });
    await expect(resolvePublicAddress('[2606:4700:4700::1111]')).resolves.toEqual({ address: '2606:4700:4700::1111', family: 6 });
    await expect(resolvePublicAddress('::ffff:8.8.8.8')).resolves.toEqual({ address: '::ffff:808:808', family: 6 });
  });
});

describe('blockedReason and refuseWithoutLookup', () => {
  test('blockedReason classifies addresses without DNS', () => {
    expect(blockedReason('8.8.8.8')).toBeNull();
    expect(blockedReason('192.0.2.1')).toBe('a reserved address');
    expect(blockedReason('2001:db8::1')).toBe('a reserved address');
    expect(blockedReason('example.com')).toBe('not an IP address');
  });

  test('refuseWithoutLookup decides literals and metadata names, leaves other names to DNS', () => {
    expect(refuseWithoutLookup('127.0.0.1')?.message).toContain('loopback');
    expect(refuseWithoutLookup('metadata.google.internal')?.message).toContain('metadata');
    expect(refuseWithoutLookup('example.com')).toBeNull();
    expect(refuseWithoutLookup('8.8.8.8')).toBeNull();
  });
});
