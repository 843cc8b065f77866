/**
 * What every head says in the same words, kind by kind, then its ledger evidence: the preset
 * dictionary a head is deflated with where it is stored (functions/store/dynamodb/head-text.ts,
 * docs/semantics.md#storage). The kinds own their heads' shapes, so their words are written here.
 *
 * FROZEN: every head stored with it is read with it, and test/unit/head-text.test.ts holds its
 * digest. A kind's new field costs only compression; a change to this text would make every head
 * deflated with it unreadable, so a new dictionary is a new constant with an attribute of its own.
 * Keys and fixed words only, never a value of one deployment (the log's origin, said three times in
 * a head, costs once).
 */
export const HEAD_WORDS_V1 = [
  '"restricted":{"subject":{"name":"","birthDate":"","email":"","holderDid":"did:"},"customer":{"name":"","email":"","phone":"","shippingAddress":""},"payment":{"cardNumber":"","iban":"","cardholder":""}}',
  '{"kind":"STATUS_LIST","reference":"status-list/","version":1,"content":{"listId":"","statusPurpose":"revocation","issuer":"did:web:","entries":131072,"encodedList":"uH4sIAAAAAAAAA-","publishedAt":"","version":1},',
  '{"kind":"CREDENTIAL","reference":"","version":1,"content":{"credentialId":"","credentialType":"","title":"","issuer":"did:web:","validFrom":"","validUntil":"","subject":{"type":"","claims":{}},"status":"ACTIVE","statusSince":"","statusList":"","statusSlots":[{"statusPurpose":"revocation","listId":"-revocation","statusListIndex":},{"statusPurpose":"suspension","listId":"-suspension","statusListIndex":}],"freshnessSeconds":3600,"version":1},',
  '{"kind":"COMMERCIAL_PROOF","reference":"","version":1,"content":{"reference":"","proofType":"PURCHASE","title":"Proof of purchase ","issuer":"","issuedAt":"","claims":{"item":"","quantity":1,"purchasedOn":""},"source":{"system":"","recordType":"PURCHASE","digest":"sha256:"},"freshnessSeconds":3600,"version":1},',
  '{"kind":"OBJECT","reference":"","version":1,"content":{"reference":"","objectType":"","businessReference":"","title":"","authority":"","state":"","stateSince":"","version":1,"freshnessSeconds":86400},',
  '"evidence":{"format":"svc.ledger-evidence.v1","version":1,"origin":"","leafIndex":1,"treeSize":1,"leafHash":"=","inclusionProof":["=","="],"checkpoint":"\\n\\n=\\n\\n— "}}',
].join('');
