/**
 * TLS to a hub, for real: a throw-away cluster serving a certificate for `localhost`
 * signed by a test CA. Loom checks the certificate and the host name (verify-full), so
 * the right CA and name connect, and a wrong CA or name is one line, before any password
 * is sent (docs/DESIGN.md#connecting-url-tls-password).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkHubSchema, connectHub, parseHubUrl } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';

let cluster: TestCluster;
let otherCa: string;

async function schemaCheck(url: string): Promise<string> {
  const client = await connectHub(parseHubUrl(url));
  try {
    return (await checkHubSchema(client)).hubId;
  } finally {
    await client.end();
  }
}

describeWithHub('TLS to a hub', () => {
  beforeAll(async () => {
    cluster = await startTestCluster({ tls: true });
    await initHub(parseHubUrl(cluster.ownerUrl));
    await cluster.createUser('tess', 'tess-pw');
    // A CA of its own that signed nothing the server holds.
    const other = await startTestCluster({ tls: true });
    otherCa = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-ca-')), 'other-ca.pem');
    fs.copyFileSync(other.caFile!, otherCa);
    await other.destroy();
  }, 120_000);

  afterAll(async () => {
    await cluster?.destroy();
    if (otherCa) fs.rmSync(path.dirname(otherCa), { recursive: true, force: true });
  });

  it('verify-full with the right CA and host name connects', async () => {
    const url = `postgres://tess:tess-pw@localhost:${cluster.port}/loom?sslmode=verify-full&sslrootcert=${cluster.caFile}`;
    expect(await schemaCheck(url)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a certificate from another CA is one line', async () => {
    const url = `postgres://tess:tess-pw@localhost:${cluster.port}/loom?sslmode=verify-full&sslrootcert=${otherCa}`;
    await expect(schemaCheck(url)).rejects.toThrow(
      /^The hub at postgres:\/\/tess@localhost:\d+\/loom\?sslmode=verify-full&sslrootcert=\S+ failed the TLS check \(/,
    );
  });

  it('a host name the certificate does not name is refused; verify-ca, which skips the name, connects', async () => {
    const verifyFull = `postgres://tess:tess-pw@127.0.0.1:${cluster.port}/loom?sslmode=verify-full&sslrootcert=${cluster.caFile}`;
    await expect(schemaCheck(verifyFull)).rejects.toThrow(/failed the TLS check .*127\.0\.0\.1/);
    const verifyCa = `postgres://tess:tess-pw@127.0.0.1:${cluster.port}/loom?sslmode=verify-ca&sslrootcert=${cluster.caFile}`;
    expect(await schemaCheck(verifyCa)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('without sslrootcert the system CAs do not know the test CA', async () => {
    await expect(schemaCheck(`postgres://tess:tess-pw@localhost:${cluster.port}/loom?sslmode=verify-full`)).rejects.toThrow(/failed the TLS check/);
  });
});
