// The explorer and the inspector (site/tools) in headless Chromium,
// against `go run . -memory -site-addr …` while the real @azure/data-tables
// client writes to it: the explorer lists the SDK's tables and shows their
// entities with typed columns, a query's plan, examined and returned;
// inserts, edits and deletes go through with ETags, and a 412 from
// someone else's write is shown; queues are peeked and blobs listed and
// downloaded. The inspector shows the SDK's requests as they happen, with
// their client request ids, filters them, flags a table scan with a
// pattern link, and shows a request's headers and bodies. On a server with
// a second account (-accounts), the explorer's account picker shows each
// account's own tables and containers. Both pages are
// checked with axe-core in both themes and saved as screenshots
// (out/explorer-*.png, out/inspector-*.png) on a desktop and a phone.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { AzureNamedKeyCredential, TableClient } from "@azure/data-tables";
import { QueueClient } from "@azure/storage-queue";
import { BlobServiceClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import { launch, missingBrowser } from "./chromium.mjs";
import { outDir } from "./record.mjs";
import { connectionString, devKey, requireDist, startServer } from "./server.mjs";
import { bodyOf, entitiesIn, entityPath, queryPath } from "../../site/tools/entity.js";
import { displayPath, matches } from "../../site/tools/inspector.js";

const missing = missingBrowser();
if (missing) {
  test("the explorer and the inspector in Chromium", (t) => {
    if (process.env.CI === "true") assert.fail(missing);
    t.skip(missing);
  });
} else {
  toolsInChromium();
}

// The page modules' pure parts, in Node.
test("the editor's rows become the JSON the service takes, typed", () => {
  const body = bodyOf("p", "r", [
    { name: "n32", type: "Edm.Int32", value: "42" },
    { name: "n64", type: "Edm.Int64", value: "9223372036854775807" },
    { name: "d", type: "Edm.Double", value: "3" },
    { name: "b", type: "Edm.Boolean", value: "true" },
    { name: "when", type: "Edm.DateTime", value: "2024-05-01T12:00:00Z" },
    { name: "g", type: "Edm.Guid", value: "0f8fad5b-d9cb-469f-a165-70867728950e" },
    { name: "bin", type: "Edm.Binary", value: "AQID" },
    { name: "s", type: "Edm.String", value: "007" },
  ]);
  assert.deepEqual(body, {
    PartitionKey: "p",
    RowKey: "r",
    n32: 42,
    n64: "9223372036854775807",
    "n64@odata.type": "Edm.Int64",
    d: 3,
    "d@odata.type": "Edm.Double",
    b: true,
    when: "2024-05-01T12:00:00Z",
    "when@odata.type": "Edm.DateTime",
    g: "0f8fad5b-d9cb-469f-a165-70867728950e",
    "g@odata.type": "Edm.Guid",
    bin: "AQID",
    "bin@odata.type": "Edm.Binary",
    s: "007",
  });
  for (const [row, message] of [
    [{ name: "x", type: "Edm.Int32", value: "2147483648" }, /Int32's range/],
    [{ name: "x", type: "Edm.Int64", value: "9223372036854775808" }, /Int64's range/],
    [{ name: "x", type: "Edm.Int32", value: "1.5" }, /whole number/],
    [{ name: "x", type: "Edm.Boolean", value: "yes" }, /true or false/],
    [{ name: "x", type: "Edm.Guid", value: "nope" }, /GUID/],
    [{ name: "Timestamp", type: "Edm.String", value: "" }, /kept by the service/],
    [{ name: " ", type: "Edm.String", value: "" }, /no name/],
  ]) {
    assert.throws(() => bodyOf("p", "r", [row]), message);
  }
  assert.throws(() => bodyOf("p", "r", [{ name: "a", type: "Edm.String", value: "" }, { name: "a", type: "Edm.String", value: "" }]), /twice/);
  assert.equal(entityPath("t", "it's", "a/b c"), "t(PartitionKey='it''s',RowKey='a%2Fb%20c')");
  assert.equal(queryPath("t", { filter: "Name eq 'a b+c'", top: "5" }, { pk: "1!4!cA--", rk: "" }), "t()?%24filter=Name%20eq%20%27a%20b%2Bc%27&%24top=5&NextPartitionKey=1%214%21cA--");
  assert.deepEqual(entitiesIn('{"value":[{"PartitionKey":"a","RowKey":"b"}]}').map((e) => e.RowKey), ["b"]);
  assert.deepEqual(entitiesIn("not json"), []);
});

test("the inspector's filters and paths", () => {
  const rec = { source: "app", service: "Table", resource: "Orders", status: 404, plan: "", path: "/devstoreaccount1/Orders()?$filter=Total%20gt%203" };
  const all = { table: "", status: "", plan: "", service: "", explorer: false };
  assert.equal(displayPath(rec), "/devstoreaccount1/Orders()?$filter=Total gt 3");
  assert.equal(displayPath({ source: "explorer", path: "/a/t()?$top=1&sv=2019-02-02&ss=bqt&srt=sco&sp=r&se=x&sig=REDACTED" }), "/a/t()?$top=1");
  assert.ok(matches(rec, all));
  assert.ok(matches(rec, { ...all, table: "ord", status: "4xx" }));
  assert.ok(!matches(rec, { ...all, status: "2xx" }));
  assert.ok(!matches(rec, { ...all, plan: "any" }));
  assert.ok(!matches(rec, { ...all, service: "Queue" }));
  assert.ok(!matches({ ...rec, source: "explorer" }, all));
  assert.ok(matches({ ...rec, source: "explorer" }, { ...all, explorer: true }));
  assert.ok(matches({ ...rec, plan: "table-scan", advice: {} }, { ...all, plan: "flagged" }));
  assert.ok(!matches({ ...rec, plan: "table-scan" }, { ...all, plan: "flagged" }));
});

function toolsInChromium() {
  requireDist();
  let server, browser, base, cs, products, orders, writer;
  const axeSource = readFileSync(join(createRequire(import.meta.url).resolve("axe-core"), "..", "axe.min.js"), "utf8");
  const opts = { allowInsecureConnection: true };

  before(async () => {
    server = await startServer({ site: true });
    if (!server.servesSite) throw new Error("this build of the server has no -site-addr flag");
    base = `http://127.0.0.1:${server.sitePort}/`;
    cs = connectionString(server);
    products = TableClient.fromConnectionString(cs, "products", opts);
    await products.createTable();
    for (let i = 0; i < 30; i++) {
      await products.createEntity({
        partitionKey: i % 2 ? "tools" : "toys",
        rowKey: String(i).padStart(3, "0"),
        name: `item ${i}`,
        price: i + 0.25,
        weight: { value: "2", type: "Double" },
        stock: i,
        serial: { value: String(9007199254740993n + BigInt(i)), type: "Int64" },
        added: new Date(Date.UTC(2024, 0, i + 1)),
        active: i % 3 === 0,
      });
    }
    const jobs = new QueueClient(cs, "jobs");
    await jobs.create();
    await jobs.sendMessage("resize photo 17");
    await jobs.sendMessage(Buffer.from("send the invoice").toString("base64"));
    const files = BlobServiceClient.fromConnectionString(cs).getContainerClient("files");
    await files.create();
    await files.getBlockBlobClient("notes/a.txt").upload("some text", 9, { blobHTTPHeaders: { blobContentType: "text/plain" } });
    await files.getBlockBlobClient("logo.png").upload(Buffer.alloc(2048, 7), 2048, { blobHTTPHeaders: { blobContentType: "image/png" } });
    browser = await launch();
    mkdirSync(outDir, { recursive: true });
  });
  after(async () => {
    await writer?.stop();
    await browser?.close();
    await server?.stop();
  });

  /**
   * startWriter has an SDK client insert an order every 50 ms into the
   * table orders, made once the page is open, until stop().
   */
  function startWriter() {
    orders = TableClient.fromConnectionString(cs, "orders", opts);
    let running = true;
    let n = 0;
    const done = (async () => {
      await orders.createTable();
      while (running) {
        await orders.createEntity({ partitionKey: `c${n % 3}`, rowKey: String(n).padStart(5, "0"), total: n * 1.5 });
        n++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    return {
      count: () => n,
      stop: async () => {
        running = false;
        await done;
      },
    };
  }

  // open returns a page at path with its console errors and failed
  // requests noted in problems.
  async function open(path, { viewport, colorScheme } = {}) {
    const page = await browser.context.newPage();
    const problems = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
    if (viewport) await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: colorScheme ?? "light" });
    await page.goto(base + path, { waitUntil: "load" });
    return { page, problems };
  }

  /** axe runs axe-core on the page and returns its violations, worded. */
  async function axe(page) {
    if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")})`);
  }

  async function openTable(page, name) {
    await page.locator(`.tool-item[data-name="${name}"]`).click();
    await page.locator(`.tool-table[data-table="${name}"] .tool-plan`).waitFor();
  }

  /** plan reads the outcome line of the last query. */
  async function plan(page) {
    const line = page.locator(".tool-plan");
    await line.waitFor();
    return line.evaluate((p) => ({ plan: p.dataset.plan, examined: Number(p.dataset.examined), returned: Number(p.dataset.returned), text: p.textContent }));
  }

  async function runQuery(page, { filter = "", select = "", top = "" }) {
    await page.locator(".tool-outcome .tool-plan").evaluate((p) => p.remove()).catch(() => {});
    await page.fill("input[name=filter]", filter);
    await page.fill("input[name=select]", select);
    await page.fill("input[name=top]", top);
    await page.click("text=Run query");
    return plan(page);
  }

  test("the explorer lists the SDK's tables, the grid has typed columns, and queries show their plans", async () => {
    const { page, problems } = await open("explorer.html");
    writer = startWriter();
    await page.locator('.tool-item[data-name="products"]').waitFor();
    // orders is made by the SDK after the page listed the tables.
    while (writer.count() < 5) await new Promise((r) => setTimeout(r, 50));
    await page.locator("#panel-tables .tool-list").getByText("Refresh").click();
    await page.locator('.tool-item[data-name="orders"]').waitFor();

    await openTable(page, "products");
    const all = await plan(page);
    assert.deepEqual([all.plan, all.examined, all.returned], ["table-scan", 30, 30]);
    const headings = await page.$$eval(".tool-table .tool-grid thead th[data-column]", (ths) => ths.map((th) => [th.dataset.column, th.dataset.types ?? ""]));
    assert.deepEqual(headings.slice(0, 2).map((h) => h[0]), ["PartitionKey", "RowKey"]);
    const types = Object.fromEntries(headings);
    assert.equal(types.price, "Edm.Double");
    // Written as 2.0 with no annotation: a Double all the same.
    assert.equal(types.weight, "Edm.Double");
    assert.equal(types.stock, "Edm.Int32");
    assert.equal(types.serial, "Edm.Int64");
    assert.equal(types.added, "Edm.DateTime");
    assert.equal(types.active, "Edm.Boolean");
    assert.equal(types.name, "Edm.String");
    const firstRow = page.locator('.tool-grid tbody tr[data-pk="toys"][data-rk="000"]');
    assert.equal(await firstRow.locator('td[data-column="serial"]').textContent(), "9007199254740993");
    assert.equal(await firstRow.locator('td[data-column="added"]').textContent(), "2024-01-01T00:00:00Z");
    await page.screenshot({ path: join(outDir, "explorer-desktop-light.png"), fullPage: true });

    const range = await runQuery(page, { filter: "PartitionKey eq 'toys' and RowKey ge '010' and RowKey lt '020'" });
    assert.deepEqual([range.plan, range.examined, range.returned], ["range", 5, 5]);
    const scan = await runQuery(page, { filter: "stock eq 7" });
    assert.deepEqual([scan.plan, scan.examined, scan.returned], ["table-scan", 30, 1]);
    const point = await runQuery(page, { filter: "PartitionKey eq 'tools' and RowKey eq '003'", select: "name,price" });
    assert.deepEqual([point.plan, point.examined, point.returned], ["point", 1, 1]);
    const cols = await page.$$eval(".tool-grid thead th[data-column]", (ths) => ths.map((th) => th.dataset.column));
    assert.deepEqual(cols.filter((c) => c !== "ETag"), ["name", "price"]);
    const top = await runQuery(page, { filter: "PartitionKey eq 'toys'", top: "4" });
    assert.deepEqual([top.plan, top.returned], ["partition-scan", 4]);
    assert.equal(await page.locator(".tool-grid tbody tr").count(), 4);
    await page.click("text=Next page");
    await page.locator('.tool-grid tbody tr[data-rk="008"]').waitFor();
    assert.equal(await page.locator(".tool-grid tbody tr").count(), 4);

    // A bad filter gets the service's own error.
    await page.fill("input[name=filter]", "stock eq");
    await page.fill("input[name=top]", "");
    await page.click("text=Run query");
    await page.locator(".tool-outcome .tool-error").waitFor();
    assert.match(await page.locator(".tool-outcome .tool-error").textContent(), /^400 InvalidInput/);

    // What the SDK sees of the same query.
    let sdkCount = 0;
    for await (const e of products.listEntities({ queryOptions: { filter: "stock eq 7" } })) sdkCount += e.rowKey === "007" ? 1 : 0;
    assert.equal(sdkCount, 1);
    // The bad filter's 400 was an answer the page showed; the browser logs
    // each failed fetch all the same.
    assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
    await page.close();
  });

  test("insert, edit with the ETag, a 412 when the SDK changed the entity meanwhile, and delete", async () => {
    const { page, problems } = await open("explorer.html");
    await openTable(page, "products");

    // Insert, typed.
    await page.click("text=Insert entity");
    const dialog = page.locator("dialog[open]");
    await dialog.locator("input[name=pk]").fill("gadgets");
    await dialog.locator("input[name=rk]").fill("900");
    await dialog.getByText("Add property").click();
    await dialog.locator("[data-role=name]").last().fill("serial");
    await dialog.locator("[data-role=type]").last().selectOption("Edm.Int64");
    await dialog.locator("[data-role=value]").last().fill("9223372036854775807");
    await dialog.getByText("Add property").click();
    await dialog.locator("[data-role=name]").last().fill("price");
    await dialog.locator("[data-role=type]").last().selectOption("Edm.Double");
    await dialog.locator("[data-role=value]").last().fill("12");
    await dialog.locator("button[type=submit]").click();
    await dialog.waitFor({ state: "detached" });
    const inserted = await products.getEntity("gadgets", "900", { disableTypeConversion: true });
    assert.deepEqual(inserted.serial, { value: "9223372036854775807", type: "Int64" });
    // JSON cannot tell the SDK that 12 is a Double; the service's own
    // answer says so.
    const raw = await fetch(`${base}_tablelab/api/table/devstoreaccount1/products(PartitionKey='gadgets',RowKey='900')`, {
      headers: { "X-Tablelab-Explorer": "1", Accept: "application/json;odata=nometadata" },
    });
    assert.match(await raw.text(), /"price":12\.0\b/);
    await page.locator('.tool-grid tr[data-pk="gadgets"][data-rk="900"]').waitFor();

    // A value that does not fit its type never leaves the page.
    await page.getByRole("button", { name: "Edit gadgets / 900" }).click();
    await dialog.locator('.tool-prop-row[data-property="serial"] [data-role=value]').fill("not a number");
    await dialog.locator("button[type=submit]").click();
    assert.match(await dialog.locator(".tool-dialog-error").textContent(), /serial: "not a number" is not a whole number/);
    await dialog.getByText("Cancel").click();

    // Edit: saved with the ETag the grid read.
    await page.getByRole("button", { name: "Edit toys / 004" }).click();
    const nameInput = dialog.locator('.tool-prop-row[data-property="name"] [data-role=value]');
    await nameInput.fill("renamed here");
    await dialog.locator("button[type=submit]").click();
    await dialog.waitFor({ state: "detached" });
    assert.equal((await products.getEntity("toys", "004")).name, "renamed here");

    // Someone else (the SDK) writes the entity while the editor is open.
    await page.locator('.tool-grid tr[data-rk="004"] td[data-column="name"]:has-text("renamed here")').waitFor();
    await page.getByRole("button", { name: "Edit toys / 004" }).click();
    await nameInput.fill("mine");
    await products.updateEntity({ partitionKey: "toys", rowKey: "004", name: "theirs", stock: 99 }, "Merge");
    await dialog.locator("button[type=submit]").click();
    const conflict = dialog.locator(".tool-conflict");
    await conflict.waitFor();
    assert.match(await conflict.textContent(), /412 UpdateConditionNotSatisfied: someone else changed this entity/);
    assert.equal((await products.getEntity("toys", "004")).name, "theirs", "the stale save changed nothing");
    await page.screenshot({ path: join(outDir, "explorer-conflict.png") });
    await conflict.getByRole("button", { name: "Load their version" }).click();
    await page.waitForFunction(() => [...document.querySelectorAll("dialog[open] [data-role=value]")].some((i) => i.value === "theirs"));
    assert.equal(await conflict.isVisible(), false);
    const stock = dialog.locator('.tool-prop-row[data-property="stock"] [data-role=value]');
    assert.equal(await stock.inputValue(), "99");
    await dialog.locator("button[type=submit]").click();
    await dialog.waitFor({ state: "detached" });
    assert.equal((await products.getEntity("toys", "004")).stock, 99);

    // Delete: refused while stale, then done anyway when asked.
    await page.getByRole("button", { name: "Delete toys / 006" }).click();
    await products.updateEntity({ partitionKey: "toys", rowKey: "006", name: "changed" }, "Merge");
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog.locator(".tool-conflict").waitFor();
    assert.equal((await products.getEntity("toys", "006")).name, "changed");
    await dialog.getByRole("button", { name: "Delete anyway" }).click();
    await dialog.waitFor({ state: "detached" });
    await assert.rejects(products.getEntity("toys", "006"), (e) => e.statusCode === 404);
    await page.locator('.tool-grid tr[data-rk="006"]').waitFor({ state: "detached" });

    // And a plain delete with a current ETag.
    await page.getByRole("button", { name: "Delete gadgets / 900" }).click();
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await assert.rejects(products.getEntity("gadgets", "900"), (e) => e.statusCode === 404);
    // The 412s were answers the page expected and showed, not errors of
    // its own; the browser logs each failed fetch all the same.
    assert.deepEqual(problems.filter((p) => !/status of 412/.test(p)), []);
    await page.close();
  });

  test("queues are peeked and blobs listed and downloaded", async () => {
    const { page, problems } = await open("explorer.html");
    await page.getByRole("tab", { name: "Queues" }).click();
    await page.locator('.tool-item[data-name="jobs"]').click();
    await page.locator(".tool-messages").waitFor();
    const texts = await page.$$eval(".tool-message-text", (s) => s.map((e) => e.textContent));
    assert.deepEqual(texts, ["resize photo 17", Buffer.from("send the invoice").toString("base64")]);
    assert.match(await page.locator(".tool-decoded").textContent(), /base64 of: send the invoice/);
    assert.match(await page.locator(".tool-queue").textContent(), /About 2 messages/);
    // Peeking took nothing: both messages are still there, never dequeued.
    const peeked = await new QueueClient(cs, "jobs").peekMessages({ numberOfMessages: 32 });
    assert.deepEqual(peeked.peekedMessageItems.map((m) => m.dequeueCount), [0, 0]);
    await page.locator("#tool").screenshot({ path: join(outDir, "explorer-queues.png") });

    await page.getByRole("tab", { name: "Containers" }).click();
    await page.locator('.tool-item[data-name="files"]').click();
    await page.locator(".tool-blobs").waitFor();
    const rows = await page.$$eval(".tool-blobs tbody tr", (trs) => trs.map((tr) => [...tr.cells].slice(0, 3).map((c) => c.textContent)));
    assert.deepEqual(rows, [
      ["logo.png", "2.0 KiB", "image/png"],
      ["notes/a.txt", "9 B", "text/plain"],
    ]);
    await page.locator("#tool").screenshot({ path: join(outDir, "explorer-blobs.png") });
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download notes/a.txt" }).click();
    const file = await download;
    assert.equal(file.suggestedFilename(), "a.txt");
    assert.equal(readFileSync(await file.path(), "utf8"), "some text");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("each list creates its kind from its form, says why a bad name is refused, and a deleted table leaves it", async () => {
    const { page, problems } = await open("explorer.html");
    await page.locator('.tool-item[data-name="products"]').waitFor();
    const tableClient = (name) => TableClient.fromConnectionString(cs, name, opts);
    for (const [tab, panel, name, exists] of [
      ["Tables", "#panel-tables", "madehere", async () => (await tableClient("madehere").getAccessPolicy().then(() => true, () => false))],
      ["Queues", "#panel-queues", "made-here", () => new QueueClient(cs, "made-here").exists()],
      ["Containers", "#panel-containers", "made-here", () => BlobServiceClient.fromConnectionString(cs).getContainerClient("made-here").exists()],
    ]) {
      await page.getByRole("tab", { name: tab }).click();
      const list = page.locator(`${panel} .tool-list`);
      await list.locator(".tool-item").first().waitFor();
      // A name the service refuses: the bar says which request and why,
      // and the list is as it was.
      const before = await list.locator(".tool-item").count();
      await list.locator("input[name=name]").fill("no");
      await list.getByRole("button", { name: "Create" }).click();
      await page.locator(".tool-status.tool-error").waitFor();
      assert.match(await page.locator(".tool-status").textContent(), new RegExp(`^Create ${tab.slice(0, -1).toLowerCase()} no: 400 `));
      assert.equal(await list.locator(".tool-item").count(), before);
      assert.equal(await list.locator("input[name=name]").inputValue(), "no", "a refused name stays in the field");
      // A good one is made in the running server, listed and opened.
      await list.locator("input[name=name]").fill(name);
      await list.getByRole("button", { name: "Create" }).click();
      await list.locator(`.tool-item[data-name="${name}"][aria-current="true"]`).waitFor();
      assert.equal(await page.locator(".tool-status").textContent(), "");
      assert.equal(await list.locator("input[name=name]").inputValue(), "");
      assert.equal(await exists(), true, `${name} is in the server's own store`);
    }
    // A table made by the SDK meanwhile appears at Refresh; deleting it
    // from the explorer takes it from the list and from the server.
    await tableClient("madebysdk").createTable();
    await page.getByRole("tab", { name: "Tables" }).click();
    await page.locator("#panel-tables .tool-list").getByText("Refresh").click();
    await openTable(page, "madebysdk");
    await page.getByRole("button", { name: "Delete table" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Delete table" }).click();
    await page.locator("#panel-tables .tool-main").getByText("Table madebysdk deleted.").waitFor();
    await page.locator('#panel-tables .tool-item[data-name="madebysdk"]').waitFor({ state: "detached" });
    assert.equal(await tableClient("madebysdk").getAccessPolicy().then(() => true, () => false), false);
    // Leave the store as the other tests expect it.
    await tableClient("madehere").deleteTable();
    await new QueueClient(cs, "made-here").delete();
    await BlobServiceClient.fromConnectionString(cs).getContainerClient("made-here").delete();
    assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
    await page.close();
  });

  test("the tabs and the editor work from the keyboard", async () => {
    const { page } = await open("explorer.html");
    await page.locator('.tool-item[data-name="products"]').waitFor();
    await page.getByRole("tab", { name: "Tables" }).focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.getByRole("tab", { name: "Queues" }).getAttribute("aria-selected"), "true");
    assert.equal(await page.evaluate(() => document.activeElement.textContent), "Queues");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("Tab");
    // The tables' list comes next: Refresh, then the tables.
    await page.locator('.tool-item[data-name="products"]').focus();
    await page.keyboard.press("Enter");
    await page.locator(".tool-plan").waitFor();
    await page.getByRole("button", { name: "Edit toys / 000" }).focus();
    await page.keyboard.press("Enter");
    await page.locator("dialog[open]").waitFor();
    assert.equal(await page.evaluate(() => document.activeElement.closest("dialog") !== null), true);
    await page.keyboard.press("Escape");
    await page.locator("dialog").waitFor({ state: "detached" });
    await page.close();
  });

  test("the inspector shows the SDK's requests live, filters them and flags a table scan", async () => {
    const { page, problems } = await open("inspector.html");
    await page.locator(".insp-state-live").waitFor();
    // The SDK's own client request id, as it sent it.
    let clientId = "";
    await products.getEntity("toys", "000", { onResponse: (r) => (clientId = r.request.headers.get("x-ms-client-request-id")) });
    assert.ok(clientId);
    const row = page.locator(`tr.insp-row[data-client-request-id="${clientId}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute("data-plan"), "point");
    assert.match(await row.locator('td[data-label="Request"]').textContent(), /^GET \/devstoreaccount1\/products\(PartitionKey='toys',RowKey='000'\)/);
    assert.equal(await row.locator('td[data-label="Examined / returned"]').textContent(), "1 / 1");
    assert.equal(await row.locator('td[data-label="Client request id"]').textContent(), clientId);

    // The background writer's inserts keep arriving.
    const before = await page.locator('tr.insp-row[data-resource="orders"]').count();
    await page.waitForFunction((n) => document.querySelectorAll('tr.insp-row[data-resource="orders"]').length >= n + 5, before);

    // A table scan that examined every entity to return 1: flagged, with
    // the pattern.
    let total = 0;
    for await (const e of products.listEntities()) total += e ? 1 : 0;
    let scanId = "";
    for await (const e of products.listEntities({ queryOptions: { filter: "name eq 'item 9'" }, onResponse: (r) => (scanId = r.request.headers.get("x-ms-client-request-id")) })) void e;
    const scan = page.locator(`tr.insp-row[data-client-request-id="${scanId}"]`);
    await scan.waitFor();
    assert.ok(await scan.evaluate((tr) => tr.classList.contains("insp-flagged")));
    const advice = scan.locator(".insp-advice");
    assert.match(await advice.textContent(), new RegExp(`Table scan: .*examined ${total}, returned 1`));
    const link = advice.getByRole("link", { name: "Index entities" });
    const href = await link.evaluate((a) => a.href);
    assert.equal(href, base + "patterns/index-entities.html");
    assert.equal((await fetch(href)).status, 200);

    // An error with its code.
    let missId = "";
    await products.getEntity("toys", "nope", { onResponse: (r) => (missId = r.request.headers.get("x-ms-client-request-id")) }).catch(() => {});
    const miss = page.locator(`tr.insp-row[data-client-request-id="${missId}"]`);
    await miss.waitFor();
    assert.match(await miss.locator('td[data-label="Status"]').textContent(), /404 ResourceNotFound/);
    await page.screenshot({ path: join(outDir, "inspector-desktop-light.png") });

    // Filters: by table, by status, by plan.
    const visible = () => page.$$eval("tr.insp-row:not([hidden])", (trs) => trs.map((tr) => ({ ...tr.dataset })));
    await page.fill("input[name=table]", "products");
    let shown = await visible();
    assert.ok(shown.length >= 3 && shown.every((r) => r.resource === "products"), JSON.stringify(shown));
    await page.selectOption("select[name=status]", "4xx");
    shown = await visible();
    assert.ok(shown.length >= 1 && shown.every((r) => r.status.startsWith("4")), JSON.stringify(shown));
    await page.selectOption("select[name=status]", "");
    await page.selectOption("select[name=plan]", "table-scan");
    shown = await visible();
    assert.ok(shown.some((r) => r.clientRequestId === scanId) && shown.every((r) => r.plan === "table-scan"), JSON.stringify(shown));
    await page.selectOption("select[name=plan]", "flagged");
    assert.ok((await visible()).every((r) => r.plan === "table-scan"));
    await page.selectOption("select[name=plan]", "");
    await page.fill("input[name=table]", "");

    // The explorer's own requests are marked, and hidden unless asked for.
    const explorer = await open("explorer.html");
    await openTable(explorer.page, "products");
    const explorerId = await explorer.page.locator(".tool-rid").textContent();
    await explorer.page.close();
    const theirs = page.locator(`tr.insp-row[data-client-request-id="${explorerId}"]`);
    await theirs.waitFor({ state: "attached" });
    assert.equal(await theirs.isVisible(), false);
    assert.equal(await theirs.getAttribute("data-source"), "explorer");
    await page.check("input[name=explorer]");
    await theirs.waitFor();
    assert.doesNotMatch(await theirs.locator(".insp-open").textContent(), /sig=/);

    // Headers and bodies on demand.
    await scan.locator(".insp-open").click();
    const detail = page.locator(".insp-detail");
    await detail.locator(".insp-facts").waitFor();
    const requestHeaders = await detail.locator(".insp-headers").first().textContent();
    assert.ok(requestHeaders.includes(scanId));
    assert.match(requestHeaders, /SharedKeyLite devstoreaccount1:REDACTED/);
    assert.match(await detail.locator(".insp-body").last().textContent(), /"name": "item 9"/);
    await page.screenshot({ path: join(outDir, "inspector-detail.png") });
    await detail.getByText("Close").click();

    // Paused, the list holds still while requests queue; resumed, they show.
    await page.click("text=Pause");
    const held = await page.locator("tr.insp-row").count();
    await page.waitForFunction(() => /Paused: [1-9]\d* new requests waiting/.test(document.querySelector(".insp-live").textContent));
    assert.equal(await page.locator("tr.insp-row").count(), held);
    await page.click("text=Resume");
    assert.ok((await page.locator("tr.insp-row").count()) > held);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("both pages pass axe-core in both themes, and look right on a desktop and a phone", async () => {
    // The writer has stopped: the pictures hold still.
    await writer?.stop();
    for (const colorScheme of ["light", "dark"]) {
      const ex = await open("explorer.html", { colorScheme });
      await openTable(ex.page, "products");
      assert.deepEqual(await axe(ex.page), [], `explorer, ${colorScheme}`);
      await ex.page.getByRole("button", { name: "Edit toys / 002" }).click();
      assert.deepEqual(await axe(ex.page), [], `the entity editor, ${colorScheme}`);
      if (colorScheme === "dark") {
        await ex.page.screenshot({ path: join(outDir, "explorer-editor-dark.png") });
        await ex.page.keyboard.press("Escape");
        await ex.page.screenshot({ path: join(outDir, "explorer-desktop-dark.png"), fullPage: true });
      }
      await ex.page.close();

      const ins = await open("inspector.html", { colorScheme });
      await ins.page.locator("tr.insp-row:not([hidden])").first().waitFor();
      await ins.page.locator("tr.insp-flagged:not([hidden]) .insp-open").first().click();
      await ins.page.locator(".insp-facts").waitFor();
      assert.deepEqual(await axe(ins.page), [], `inspector, ${colorScheme}`);
      if (colorScheme === "dark") await ins.page.screenshot({ path: join(outDir, "inspector-desktop-dark.png") });
      await ins.page.close();
    }
    const phone = { width: 390, height: 844 };
    const ex = await open("explorer.html", { viewport: phone });
    await openTable(ex.page, "products");
    assert.ok(await ex.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "the explorer scrolls sideways on a phone");
    await ex.page.locator("#tool").screenshot({ path: join(outDir, "explorer-phone.png") });
    // A row keeps one button on a phone; its editor deletes.
    assert.equal(await ex.page.locator('tr[data-rk="002"] .tool-delete').isVisible(), false);
    await ex.page.getByRole("button", { name: "Edit toys / 002" }).click();
    assert.ok(await ex.page.locator("dialog[open]").getByRole("button", { name: "Delete toys / 002" }).isVisible());
    await ex.page.screenshot({ path: join(outDir, "explorer-editor-phone.png") });
    await ex.page.close();
    const ins = await open("inspector.html", { viewport: phone, colorScheme: "dark" });
    await ins.page.locator("tr.insp-flagged:not([hidden])").first().waitFor();
    assert.ok(await ins.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "the inspector scrolls sideways on a phone");
    assert.deepEqual(await axe(ins.page), [], "inspector on a phone");
    await ins.page.locator("#tool").screenshot({ path: join(outDir, "inspector-phone.png") });
    await ins.page.close();
  });

  test("the tools answer this machine's names only", async () => {
    // A page of another site whose name resolves here (DNS rebinding).
    const status = await new Promise((resolve, reject) => {
      const req = httpRequest(`${base}_tablelab/api/info`, { headers: { "X-Tablelab-Explorer": "1", Host: `rebound.example:${server.sitePort}` } }, (resp) => {
        resp.resume();
        resolve(resp.statusCode);
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(status, 403);
    const ok = await fetch(`${base}_tablelab/api/info`, { headers: { "X-Tablelab-Explorer": "1" } });
    assert.deepEqual(await ok.json(), { accounts: ["devstoreaccount1"], services: ["Blob", "Queue", "Table"] });
    // A request without the explorer's mark, as a form of another site
    // could send, is refused.
    assert.equal((await fetch(`${base}_tablelab/api/table/devstoreaccount1/Tables`)).status, 403);
  });

  test("with two accounts, the picker shows each account's own tables and containers", async () => {
    // A server of its own, on free ports, with a second account.
    const otherKey = Buffer.from("the other account's key").toString("base64");
    const two = await startServer({ site: true, devPorts: false, args: ["-accounts", `other:${otherKey}`] });
    try {
      // Each account writes a table and a container with its own key.
      for (const [account, key] of [["devstoreaccount1", devKey], ["other", otherKey]]) {
        const short = account.slice(0, 5);
        const table = new TableClient(`http://127.0.0.1:${two.tablePort}/${account}`, `${short}table`, new AzureNamedKeyCredential(account, key), opts);
        await table.createTable();
        await table.createEntity({ partitionKey: "p", rowKey: "r", owner: account });
        const blobs = new BlobServiceClient(`http://127.0.0.1:${two.blobPort}/${account}`, new StorageSharedKeyCredential(account, key));
        await blobs.getContainerClient(`${short}files`).create();
      }
      const page = await browser.context.newPage();
      const problems = [];
      page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
      await page.goto(`http://127.0.0.1:${two.sitePort}/explorer.html`, { waitUntil: "load" });
      const listed = async (panel) => page.$$eval(`${panel} .tool-item[data-name]`, (items) => items.map((i) => i.dataset.name));
      await page.locator('.tool-item[data-name="devsttable"]').waitFor();
      assert.deepEqual(await listed("#panel-tables"), ["devsttable"]);
      await page.selectOption("select.tool-input", "other");
      await page.locator('.tool-item[data-name="othertable"]').waitFor();
      assert.deepEqual(await listed("#panel-tables"), ["othertable"]);
      await openTable(page, "othertable");
      assert.match(await page.locator(".tool-table .tool-grid tbody").innerText(), /\bother\b/);
      await page.screenshot({ path: join(outDir, "explorer-accounts.png") });
      await page.getByRole("tab", { name: "Containers" }).click();
      await page.locator('.tool-item[data-name="otherfiles"]').waitFor();
      assert.deepEqual(await listed("#panel-containers"), ["otherfiles"]);
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await two.stop();
    }
  });
}
