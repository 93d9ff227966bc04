// Plain words for the errors a learner meets: the service's code and
// message say what Azure refused, in Azure's terms; a sentence here says
// what that means for the reader's code, and which page of the guide
// explains it. The page paths are the site's, relative to its root.

// A rule matches an error by its code (and, where one code covers several
// mistakes, its message) and says what to tell the reader.
const RULES = [
  {
    code: "OutOfRangeInput",
    when: /'(PartitionKey|RowKey)' parameter of value '(.*)' is out of range/,
    say: (m) => {
      const bad = [...m[2]].find((c) => "/\\#?".includes(c) || c.charCodeAt(0) < 32 || (c.charCodeAt(0) >= 127 && c.charCodeAt(0) < 160));
      if (bad === undefined) return `${m[1]} is too long: a key holds at most 1 KiB.`;
      const shown = bad.charCodeAt(0) < 32 || bad.charCodeAt(0) >= 127 ? `the control character U+${bad.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` : `“${bad}”`;
      return `${m[1]} '${m[2]}' contains ${shown}: keys may not hold /, \\, #, ? or control characters, so the whole entity is refused. Use another separator (such as - or _) or encode the value.`;
    },
    page: "concepts/data-model.html#keys",
  },
  {
    code: "OutOfRangeInput",
    when: /table|resource name/i,
    say: () => "Table names are 3 to 63 letters and digits, starting with a letter.",
    page: "concepts/data-model.html#table-names",
  },
  {
    code: "InvalidResourceName",
    say: () => "Table names are 3 to 63 letters and digits, starting with a letter; queue and container names are lower-case letters, digits and hyphens.",
    page: "concepts/data-model.html#table-names",
  },
  {
    code: "EntityAlreadyExists",
    say: () => "createEntity only inserts, and an entity with this PartitionKey and RowKey is already in the table. upsertEntity inserts or replaces; updateEntity changes one that exists.",
    page: "concepts/concurrency.html#merge-replace-and-the-two-upserts",
  },
  {
    code: "TableAlreadyExists",
    say: () => "A table of this name exists already (names are not case-sensitive). createTable() on a TableClient ignores this; TableServiceClient.createTable does not.",
    page: "concepts/data-model.html#table-names",
  },
  {
    code: "TableNotFound",
    say: () => "No table of this name exists in this store: create it first (await client.createTable()), and check the name's spelling.",
    page: "concepts/data-model.html#table-names",
  },
  {
    code: "ResourceNotFound",
    say: () => "No entity has this PartitionKey and RowKey: a point read, update or delete names exactly one entity, and this one is not there.",
    page: "concepts/queries.html",
  },
  {
    code: ["UpdateConditionNotSatisfied", "ConditionNotMet"],
    say: () => "The ETag no longer matches: the entity (or blob) changed after you read it, so the write was refused rather than overwrite that change. Read it again and retry, or write without an ETag condition to overwrite.",
    page: "concepts/concurrency.html#an-etag-for-every-version",
  },
  {
    code: "PropertyValueTooLarge",
    say: () => "A String or Binary property holds at most 64 KiB (a String up to 32K characters). Split the value over several properties or entities, or keep it in a blob.",
    page: "concepts/data-model.html#values-and-the-whole-entity",
  },
  {
    code: "EntityTooLarge",
    say: () => "An entity is at most 1 MiB in all, keys, names and values counted. Split it (the wide entities and large entities patterns show how).",
    page: "concepts/data-model.html#values-and-the-whole-entity",
  },
  {
    code: "TooManyProperties",
    say: () => "An entity holds at most 255 properties, PartitionKey, RowKey and Timestamp among them: 252 of your own.",
    page: "concepts/data-model.html#properties-and-their-names",
  },
  {
    code: "InvalidDuplicateRow",
    say: () => "An entity may appear only once in a transaction: two actions here name the same PartitionKey and RowKey.",
    page: "concepts/transactions.html#the-limits-broken-one-at-a-time",
  },
  {
    code: "InvalidInput",
    when: /change set|batch/i,
    say: () => "A transaction holds at most 100 actions on one partition of one table, and at most 4 MiB.",
    page: "concepts/transactions.html#the-limits-broken-one-at-a-time",
  },
  {
    code: "InvalidInput",
    when: /\$filter/,
    say: () => "The filter does not parse. Literals need their type's form: 'text' in single quotes, datetime'…', guid'…', 42L for an Int64.",
    page: "reference/filter.html#grammar",
  },
  {
    code: "InvalidInput",
    when: /not a valid Edm\.|type/i,
    say: () => "A value does not fit the type it is declared with (or that its JSON implies). Whole numbers are Int32 unless you say otherwise.",
    page: "reference/types.html",
  },
  {
    code: null,
    when: /same partitionKey|same partition key/i,
    say: () => "A transaction's actions must all share one PartitionKey: a transaction never spans partitions.",
    page: "concepts/transactions.html#the-limits-broken-one-at-a-time",
  },
  {
    code: null,
    when: /continuation/i,
    say: () => "A continuation token is only good for the query that returned it; pass it back unchanged, with the same filter.",
    page: "concepts/paging-and-projection.html#every-query-is-a-series-of-pages",
  },
  {
    code: ["AuthorizationFailure", "AuthenticationFailed", "AuthorizationPermissionMismatch", "AuthorizationResourceTypeMismatch", "AuthorizationServiceMismatch"],
    say: () => "The credential does not allow this request: a shared access signature names the permissions, the table, the key range and the time it is good for.",
    page: "concepts/shared-access-signatures.html",
  },
  {
    code: "ServerBusy",
    say: () => "The service is throttling: a partition or the account took more than its target of operations a second. Retry with back-off, and spread the load over partitions.",
    page: "concepts/hot-partitions.html",
  },
  {
    code: ["QueueNotFound", "QueueAlreadyExists", "MessageNotFound", "PopReceiptMismatch", "ContainerNotFound", "ContainerAlreadyExists", "BlobNotFound", "BlobAlreadyExists"],
    say: (m, error) => {
      if (error.code === "MessageNotFound" || error.code === "PopReceiptMismatch") return "A message can be deleted only with the pop receipt of its latest receive: once its visibility timeout passed, someone else may have received it again.";
      return "The queue, container or blob is not where the code expects it (create it first), or is there already.";
    },
    page: "reference/queues-and-blobs.html",
  },
];

/**
 * explainError returns {text, page} for an error as the runner describes
 * it ({name, message, code?, detail?}), or null when no plain words are
 * known for it. page is a path from the site's root, with its anchor.
 */
export function explainError(error) {
  if (!error) return null;
  const message = firstLine(error.detail ?? error.message ?? "");
  for (const rule of RULES) {
    const codes = rule.code === null ? [undefined] : [rule.code].flat();
    if (rule.code !== null && !codes.includes(error.code)) continue;
    if (rule.code === null && error.code) continue;
    const m = rule.when ? message.match(rule.when) : [];
    if (!m) continue;
    return { text: rule.say(m, error), page: rule.page };
  }
  return null;
}

/**
 * firstLine is a service message without the request id and time Azure
 * puts on the lines after it, which say nothing to a reader.
 */
export function firstLine(message) {
  return String(message).split("\n")[0];
}

// LEFTOVER_CODES are the errors a store's earlier contents cause when a
// program that creates things runs again on them.
const LEFTOVER_CODES = new Set(["EntityAlreadyExists", "TableAlreadyExists", "QueueAlreadyExists", "ContainerAlreadyExists", "BlobAlreadyExists"]);

/** isLeftover reports whether error is one a kept store's leftovers cause. */
export function isLeftover(error) {
  return Boolean(error && LEFTOVER_CODES.has(error.code));
}
