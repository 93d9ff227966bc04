// The explorer's model of an entity: reading one from the Table service's
// JSON with every property's Edm type, laying its properties out for the
// editor, and writing the editor's rows back as the JSON the service
// takes. Pure, so node --test checks it.

import { edmType } from "../play/grid.js";

/** The Edm types a property may have, as the editor offers them. */
export const TYPES = ["Edm.String", "Edm.Int32", "Edm.Int64", "Edm.Double", "Edm.Boolean", "Edm.DateTime", "Edm.Guid", "Edm.Binary"];

/** The properties the service keeps itself, never edited as properties. */
const SYSTEM = new Set(["PartitionKey", "RowKey", "Timestamp"]);

/**
 * parseBody parses a Table response body. JSON numbers lose how they were
 * written, and a Double of 2 arrives as 2.0 with no annotation: where the
 * engine hands the reviver the number's text (JSON.parse source text
 * access), a number written with a point or an exponent gets its
 * Edm.Double annotation back, so the grid does not call it Edm.Int32.
 */
export function parseBody(text) {
  const doubles = [];
  const json = JSON.parse(text, function (key, value, context) {
    if (typeof value === "number" && typeof context?.source === "string" && /[.eE]/.test(context.source)) {
      doubles.push([this, key]);
    }
    return value;
  });
  for (const [holder, key] of doubles) {
    if (holder && typeof holder === "object" && !Array.isArray(holder) && !(`${key}@odata.type` in holder)) {
      holder[`${key}@odata.type`] = "Edm.Double";
    }
  }
  return json;
}

/** entitiesIn reads a query's entities, or a single entity's. */
export function entitiesIn(text) {
  let json;
  try {
    json = parseBody(text);
  } catch {
    return [];
  }
  if (Array.isArray(json?.value)) return json.value.filter((e) => e && typeof e === "object");
  if (json && typeof json === "object" && "PartitionKey" in json) return [json];
  return [];
}

/**
 * propertiesOf lists an entity's own properties for the editor, each
 * {name, type, value} with value as text, in the entity's order.
 */
export function propertiesOf(entity) {
  const rows = [];
  for (const [name, value] of Object.entries(entity)) {
    if (SYSTEM.has(name) || name.includes("@") || name.startsWith("odata.")) continue;
    rows.push({ name, type: edmType(entity, name), value: String(value) });
  }
  return rows;
}

const INT64_MAX = 9223372036854775807n;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * bodyOf writes an entity with keys pk and rk and the editor's rows as
 * the JSON body the service takes, every type that JSON cannot say
 * annotated. It throws an Error naming the property when a value does
 * not fit its type, before anything is sent.
 */
export function bodyOf(pk, rk, rows) {
  const body = { PartitionKey: pk, RowKey: rk };
  const seen = new Set();
  for (const { name, type, value } of rows) {
    const n = name.trim();
    if (!n) throw new Error("A property has no name.");
    if (SYSTEM.has(n)) throw new Error(`${n} is kept by the service, not a property to set.`);
    if (seen.has(n)) throw new Error(`${n} is named twice.`);
    seen.add(n);
    const bad = (what) => new Error(`${n}: "${value}" is not ${what}.`);
    switch (type) {
      case "Edm.String":
        body[n] = value;
        break;
      case "Edm.Int32": {
        if (!/^-?\d+$/.test(value.trim())) throw bad("a whole number");
        const v = Number(value);
        if (v < -2147483648 || v > 2147483647) throw bad("within Int32's range");
        body[n] = v;
        break;
      }
      case "Edm.Int64": {
        if (!/^-?\d+$/.test(value.trim())) throw bad("a whole number");
        const v = BigInt(value.trim());
        if (v > INT64_MAX || v < -INT64_MAX - 1n) throw bad("within Int64's range");
        body[n] = v.toString();
        body[`${n}@odata.type`] = type;
        break;
      }
      case "Edm.Double": {
        const t = value.trim();
        if (["NaN", "Infinity", "-Infinity"].includes(t)) {
          body[n] = t;
        } else {
          const v = Number(t);
          if (t === "" || !Number.isFinite(v)) throw bad("a number");
          body[n] = v;
        }
        // Annotated always: a Double of 3 would otherwise be read as Int32.
        body[`${n}@odata.type`] = type;
        break;
      }
      case "Edm.Boolean":
        if (value !== "true" && value !== "false") throw bad("true or false");
        body[n] = value === "true";
        break;
      case "Edm.DateTime":
        if (Number.isNaN(Date.parse(value))) throw bad("a date and time (2024-05-01T12:00:00Z)");
        body[n] = value.trim();
        body[`${n}@odata.type`] = type;
        break;
      case "Edm.Guid":
        if (!GUID.test(value.trim())) throw bad("a GUID");
        body[n] = value.trim();
        body[`${n}@odata.type`] = type;
        break;
      case "Edm.Binary":
        if (!BASE64.test(value.trim())) throw bad("base64");
        body[n] = value.trim();
        body[`${n}@odata.type`] = type;
        break;
      default:
        throw new Error(`${n}: no type ${type}.`);
    }
  }
  return body;
}

/** keyLiteral quotes a key for an entity's address, as the SDKs do. */
function keyLiteral(k) {
  return encodeURIComponent(k.replaceAll("'", "''"));
}

/** entityPath is the address of one entity of table, under the account. */
export function entityPath(table, pk, rk) {
  return `${encodeURIComponent(table)}(PartitionKey='${keyLiteral(pk)}',RowKey='${keyLiteral(rk)}')`;
}

/**
 * queryPath is a query of table with the query box's $filter, $select
 * and $top, and a continuation (NextPartitionKey, NextRowKey) when
 * paging on.
 */
export function queryPath(table, { filter = "", select = "", top = "" } = {}, next) {
  const q = new URLSearchParams();
  if (filter.trim()) q.set("$filter", filter.trim());
  if (select.trim()) q.set("$select", select.trim());
  if (String(top).trim()) q.set("$top", String(top).trim());
  if (next?.pk) q.set("NextPartitionKey", next.pk);
  if (next?.rk) q.set("NextRowKey", next.rk);
  // URLSearchParams writes spaces as +, which OData does not read as a
  // space.
  const s = q.toString().replaceAll("+", "%20");
  return `${encodeURIComponent(table)}()${s ? "?" + s : ""}`;
}
