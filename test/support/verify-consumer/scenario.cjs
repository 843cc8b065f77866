// What a relying party does with @public-trust/verify, written once and run from every way the
// package is loaded (consumer.mjs, consumer.cjs, browser.mjs): `pkg` is the package as loaded.
// It reads and verifies every demo reference with the key it pins, verifies a record it tampered
// with, a checkpoint and the log's growth, and returns what it found for the test to judge.
module.exports = async function scenario(pkg, input) {
  const { baseUrl, key, strangerKey, references, olderCheckpoint, newerCheckpoint } = input;
  const trustedKeys = [key];
  const summary = (r) => ({
    ok: r.ok,
    kind: r.kind,
    reference: r.reference,
    failed: r.checks.filter((c) => !c.ok).map((c) => c.name),
    checks: r.checks.map((c) => c.name),
    origin: r.origin,
    leafIndex: r.leafIndex,
    treeSize: r.treeSize,
    serviceSaid: r.serviceSaid,
  });
  const kinds = { objects: 'object', commercialProofs: 'commercial-proof', credentials: 'credential', statusLists: 'status-list' };
  const references_ = {};
  for (const [group, kind] of Object.entries(kinds)) {
    for (const reference of references[group]) references_[reference] = summary(await pkg.fetchAndVerify(reference, { baseUrl, kind, trustedKeys }));
  }
  // A read URL names the kind itself.
  const byUrl = summary(await pkg.fetchAndVerify(`${baseUrl}/v1/commercial-proofs/${references.commercialProofs[0]}`, { trustedKeys }));

  // The typed client, then an offline check of a record changed after it was read.
  const client = pkg.createTrustClient({ baseUrl });
  const { data } = await client.GET('/v1/objects/{reference}', { params: { path: { reference: references.objects[0] } } });
  const tamperedAnswer = JSON.parse(JSON.stringify(data));
  tamperedAnswer.object.title = `${tamperedAnswer.object.title} (edited)`;
  const tampered = summary(await pkg.verifyEvidence(tamperedAnswer, { trustedKeys }));
  const untouched = summary(await pkg.verifyEvidence(data, { trustedKeys }));
  // A status list whose bits were changed on the way, its logged record left alone.
  const list = await client.GET('/v1/status-lists/{listId}', { params: { path: { listId: references.statusLists[0] } } });
  const flipped = JSON.parse(JSON.stringify(list.data));
  flipped.credentialSubject.encodedList = flipped.credentialSubject.encodedList.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  const tamperedList = summary(await pkg.verifyEvidence(flipped, { trustedKeys }));
  // Keys are the caller's: a key the log never used verifies nothing.
  const strangerKeyResult = summary(await pkg.fetchAndVerify(references.objects[0], { baseUrl, trustedKeys: [strangerKey] }));

  // The log: a checkpoint, and that it only grew from an older one.
  const older = await pkg.verifyCheckpoint(olderCheckpoint, { trustedKeys });
  const newer = await pkg.verifyCheckpoint(newerCheckpoint, { trustedKeys });
  const { data: proof } = await client.GET('/v1/ledger/consistency', { params: { query: { from: older.treeSize, to: newer.treeSize } } });
  const consistency = await pkg.verifyConsistency(olderCheckpoint, newerCheckpoint, proof, { trustedKeys });
  const reversed = await pkg.verifyConsistency(newerCheckpoint, olderCheckpoint, proof, { trustedKeys });
  const forgedCheckpoint = await pkg.verifyCheckpoint(newerCheckpoint.replace(/^([^\n]+)\n(\d+)\n/, (_, o, n) => `${o}\n${Number(n) + 1}\n`), { trustedKeys });

  let problem = null;
  try {
    await pkg.fetchAndVerify('NO-SUCH-REFERENCE', { baseUrl, trustedKeys });
  } catch (error) {
    problem = { name: error.name, status: error.status, message: error.message };
  }
  return { references: references_, byUrl, tampered, untouched, tamperedList, strangerKeyResult, older, newer, consistency, reversed, forgedCheckpoint, problem };
};
