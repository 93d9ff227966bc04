// The results grid's model: the entities of a response, in columns the
// way Azure Storage Explorer shows them (PartitionKey, RowKey, the other
// properties with their Edm types, then Timestamp and ETag). Pure, so
// node --test checks it.

/**
 * entitiesOf reads the entities of a Table response body: a query's
 * "value" list or a single entity. Anything else (a table list, an
 * error, no body) has none.
 */
export function entitiesOf(body) {
  // The page looks back through a run's responses for the last with
  // entities, past pages of a query that selected no keys: a body that
  // never names PartitionKey holds none, and is not parsed.
  if (typeof body !== "string" || !body.includes('"PartitionKey"')) return [];
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    return [];
  }
  if (Array.isArray(json?.value)) return json.value.filter((e) => e && typeof e === "object" && "PartitionKey" in e);
  if (json && typeof json === "object" && "PartitionKey" in json) return [json];
  return [];
}

/**
 * edmType is a property's type as the response states it (an
 * "@odata.type" annotation) or as JSON implies it without one: whole
 * numbers are Edm.Int32, other numbers Edm.Double, as the service reads
 * them.
 */
export function edmType(entity, name) {
  const stated = entity[`${name}@odata.type`];
  if (typeof stated === "string") return stated;
  const v = entity[name];
  if (typeof v === "boolean") return "Edm.Boolean";
  if (typeof v === "number") return Number.isInteger(v) ? "Edm.Int32" : "Edm.Double";
  return "Edm.String";
}

/**
 * gridOf lays entities out as {columns: [{name, types}], rows: [[cell]]},
 * each cell {value, type} or null where the entity lacks the property.
 * A column lists every type its values had: in a schemaless table one
 * name may hold several.
 */
export function gridOf(entities) {
  const names = [];
  const seen = new Set(["PartitionKey", "RowKey", "Timestamp"]);
  for (const e of entities) {
    for (const k of Object.keys(e)) {
      if (k.includes("@") || k.startsWith("odata.") || seen.has(k)) continue;
      seen.add(k);
      names.push(k);
    }
  }
  const columns = ["PartitionKey", "RowKey", ...names, "Timestamp"].map((name) => ({ name, types: [] }));
  columns.push({ name: "ETag", types: [] });
  const rows = entities.map((e) =>
    columns.map((col) => {
      const value = col.name === "ETag" ? e["odata.etag"] : e[col.name];
      if (value === undefined) return null;
      const type = col.name === "ETag" ? "" : col.name === "Timestamp" ? "Edm.DateTime" : edmType(e, col.name);
      if (type && !col.types.includes(type)) col.types.push(type);
      return { value: String(value), type };
    }),
  );
  return { columns, rows };
}
