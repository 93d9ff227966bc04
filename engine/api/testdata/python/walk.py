"""A walk of the Table, Queue and Blob services with Microsoft's Python SDKs.

Debian's python3-azure ships azure-data-tables, azure-storage-queue and
azure-storage-blob; the test command (build/testrun, the Python tier) runs
this file with /usr/bin/python3 against a server it started, naming it in
STORAGE_CONNECTION_STRING (the development account's key and an endpoint for
each service). Each test is one check: the report is TAP, one line a test,
so the tier counts them as it counts node's.
"""

import os
import sys
import time
import traceback
import unittest
import uuid
from datetime import datetime, timedelta, timezone

from azure.core import MatchConditions
from azure.core.credentials import AzureSasCredential
from azure.core.exceptions import (
    HttpResponseError,
    ResourceExistsError,
    ResourceModifiedError,
    ResourceNotFoundError,
)
from azure.data.tables import TableClient, TableSasPermissions, TableServiceClient, TableTransactionError, UpdateMode, generate_table_sas
from azure.storage.blob import BlobServiceClient, ContentSettings
from azure.storage.queue import QueueServiceClient

CONN = os.environ.get("STORAGE_CONNECTION_STRING", "")


def unique(prefix):
    """A name no other run uses: the tests share one server."""
    return prefix + uuid.uuid4().hex[:12]


def error_code(err):
    """The service's error code, wherever the SDK put it."""
    return getattr(err, "error_code", None) or getattr(getattr(err, "response", None), "headers", {}).get("x-ms-error-code")


class Tables(unittest.TestCase):
    def setUp(self):
        self.service = TableServiceClient.from_connection_string(CONN)
        self.name = unique("py")
        self.table = self.service.create_table(self.name)

    def tearDown(self):
        self.service.delete_table(self.name)

    def test_create_and_list_tables(self):
        with self.assertRaises(ResourceExistsError):
            self.service.create_table(self.name)
        names = [t.name for t in self.service.query_tables("TableName eq '%s'" % self.name)]
        self.assertEqual(names, [self.name])

    def test_insert_and_point_read(self):
        made = self.table.create_entity({"PartitionKey": "p", "RowKey": "r", "Name": "Ada", "Age": 36, "Score": 2.5, "On": True})
        self.assertTrue(made["etag"].startswith('W/"datetime'))
        got = self.table.get_entity("p", "r")
        self.assertEqual((got["Name"], got["Age"], got["Score"], got["On"]), ("Ada", 36, 2.5, True))
        self.assertEqual(got.metadata["etag"], made["etag"])
        with self.assertRaises(ResourceExistsError):
            self.table.create_entity({"PartitionKey": "p", "RowKey": "r"})
        with self.assertRaises(ResourceNotFoundError):
            self.table.get_entity("p", "missing")

    def test_upsert_and_merge(self):
        self.table.upsert_entity({"PartitionKey": "p", "RowKey": "u", "A": 1, "B": "kept"})
        self.table.upsert_entity({"PartitionKey": "p", "RowKey": "u", "A": 2}, mode=UpdateMode.MERGE)
        got = self.table.get_entity("p", "u")
        self.assertEqual((got["A"], got["B"]), (2, "kept"))
        self.table.upsert_entity({"PartitionKey": "p", "RowKey": "u", "A": 3}, mode=UpdateMode.REPLACE)
        got = self.table.get_entity("p", "u")
        self.assertEqual(got["A"], 3)
        self.assertNotIn("B", got)
        self.table.update_entity({"PartitionKey": "p", "RowKey": "u", "C": "merged"}, mode=UpdateMode.MERGE)
        got = self.table.get_entity("p", "u")
        self.assertEqual((got["A"], got["C"]), (3, "merged"))

    def test_query_filter_select_top_and_paging(self):
        for i in range(25):
            self.table.create_entity({"PartitionKey": "q", "RowKey": "%03d" % i, "N": i, "Extra": "x"})
        self.table.create_entity({"PartitionKey": "other", "RowKey": "000", "N": 100})
        pages = self.table.query_entities(
            "PartitionKey eq @pk and N ge @lo", parameters={"pk": "q", "lo": 5}, select=["RowKey", "N"], results_per_page=7
        ).by_page()
        sizes, seen = [], []
        for page in pages:
            rows = list(page)
            sizes.append(len(rows))
            seen.extend(e["N"] for e in rows)
            for e in rows:
                self.assertNotIn("Extra", e)
        self.assertEqual(seen, list(range(5, 25)))
        self.assertEqual(sizes, [7, 7, 6])
        top = next(self.table.list_entities(results_per_page=3).by_page())
        self.assertEqual(len(list(top)), 3)
        self.assertEqual(len(list(self.table.list_entities())), 26)

    def test_transaction(self):
        self.table.create_entity({"PartitionKey": "t", "RowKey": "gone", "V": 0})
        self.table.create_entity({"PartitionKey": "t", "RowKey": "kept", "V": 0})
        result = self.table.submit_transaction([
            ("create", {"PartitionKey": "t", "RowKey": "a", "V": 1}),
            ("upsert", {"PartitionKey": "t", "RowKey": "b", "V": 2}),
            ("update", {"PartitionKey": "t", "RowKey": "kept", "V": 3}, {"mode": "merge"}),
            ("delete", {"PartitionKey": "t", "RowKey": "gone"}),
        ])
        self.assertEqual(len(result), 4)
        rows = {e["RowKey"]: e["V"] for e in self.table.query_entities("PartitionKey eq 't'")}
        self.assertEqual(rows, {"a": 1, "b": 2, "kept": 3})
        # One failing operation: nothing applies, and the error names it.
        with self.assertRaises(TableTransactionError) as caught:
            self.table.submit_transaction([
                ("create", {"PartitionKey": "t", "RowKey": "c", "V": 4}),
                ("create", {"PartitionKey": "t", "RowKey": "a", "V": 5}),
            ])
        self.assertEqual(caught.exception.index, 1)
        self.assertEqual(caught.exception.error_code, "EntityAlreadyExists")
        with self.assertRaises(ResourceNotFoundError):
            self.table.get_entity("t", "c")

    def test_etag_conflict(self):
        first = self.table.create_entity({"PartitionKey": "e", "RowKey": "r", "V": 1})
        self.table.update_entity({"PartitionKey": "e", "RowKey": "r", "V": 2}, etag=first["etag"], match_condition=MatchConditions.IfNotModified)
        with self.assertRaises(ResourceModifiedError) as caught:
            self.table.update_entity({"PartitionKey": "e", "RowKey": "r", "V": 3}, etag=first["etag"], match_condition=MatchConditions.IfNotModified)
        self.assertEqual(caught.exception.status_code, 412)
        self.assertEqual(self.table.get_entity("e", "r")["V"], 2)
        with self.assertRaises(ResourceModifiedError):
            self.table.delete_entity("e", "r", etag=first["etag"], match_condition=MatchConditions.IfNotModified)

    def test_sas_key_range(self):
        for pk in ("a", "m", "z"):
            self.table.create_entity({"PartitionKey": pk, "RowKey": "1"})
        sas = generate_table_sas(
            self.service.credential, self.name, permission=TableSasPermissions(read=True, add=True),
            expiry=datetime.now(timezone.utc) + timedelta(hours=1), start_pk="b", end_pk="y",
        )
        ranged = TableClient(self.service.url, self.name, credential=AzureSasCredential(sas))
        self.assertEqual([e["PartitionKey"] for e in ranged.list_entities()], ["m"])
        self.assertEqual(ranged.get_entity("m", "1")["PartitionKey"], "m")
        # Outside the range a point read finds nothing, and a write is refused.
        with self.assertRaises(ResourceNotFoundError):
            ranged.get_entity("z", "1")
        with self.assertRaises(HttpResponseError) as caught:
            ranged.create_entity({"PartitionKey": "a", "RowKey": "2"})
        self.assertEqual(caught.exception.status_code, 403)
        ranged.create_entity({"PartitionKey": "n", "RowKey": "2"})

    def test_delete(self):
        self.table.create_entity({"PartitionKey": "d", "RowKey": "r"})
        self.table.delete_entity("d", "r")
        with self.assertRaises(ResourceNotFoundError):
            self.table.get_entity("d", "r")
        # Deleting what is not there is no error to the SDK.
        self.table.delete_entity("d", "r")


class Queues(unittest.TestCase):
    def setUp(self):
        self.service = QueueServiceClient.from_connection_string(CONN)
        self.name = unique("py-")
        self.queue = self.service.create_queue(self.name)

    def tearDown(self):
        self.service.delete_queue(self.name)

    def test_create_and_list(self):
        names = [q.name for q in self.service.list_queues(name_starts_with=self.name)]
        self.assertEqual(names, [self.name])
        with self.assertRaises(ResourceExistsError):
            self.service.create_queue(self.name)

    def test_send_peek_receive_delete(self):
        for text in ("one", "two", "three"):
            self.queue.send_message(text)
        peeked = self.queue.peek_messages(max_messages=5)
        self.assertEqual([m.content for m in peeked], ["one", "two", "three"])
        self.assertEqual(self.queue.get_queue_properties().approximate_message_count, 3)
        got = list(self.queue.receive_messages(messages_per_page=2, visibility_timeout=30))
        self.assertEqual([m.content for m in got], ["one", "two", "three"])
        self.assertEqual(got[0].dequeue_count, 1)
        for m in got:
            self.queue.delete_message(m)
        self.assertEqual(self.queue.peek_messages(max_messages=5), [])

    def test_visibility(self):
        self.queue.send_message("hidden")
        first = self.queue.receive_message(visibility_timeout=30)
        self.assertEqual(first.content, "hidden")
        # Received, it is invisible to the next receiver and to a peek.
        self.assertIsNone(self.queue.receive_message())
        self.assertEqual(self.queue.peek_messages(), [])
        # Made visible again at once, with new content.
        updated = self.queue.update_message(first, pop_receipt=first.pop_receipt, visibility_timeout=0, content="shown")
        self.assertNotEqual(updated.pop_receipt, first.pop_receipt)
        again = self.queue.receive_message(visibility_timeout=30)
        self.assertEqual((again.content, again.dequeue_count), ("shown", 2))
        # The old receipt no longer deletes it.
        with self.assertRaises(HttpResponseError) as caught:
            self.queue.delete_message(first.id, first.pop_receipt)
        self.assertEqual(caught.exception.status_code, 404)
        self.queue.delete_message(again)

    def test_clear_and_delete_queue(self):
        self.queue.send_message("x")
        self.queue.clear_messages()
        self.assertEqual(self.queue.peek_messages(), [])
        other = unique("py-gone-")
        self.service.create_queue(other)
        self.service.delete_queue(other)
        with self.assertRaises(ResourceNotFoundError):
            self.service.get_queue_client(other).get_queue_properties()


class Blobs(unittest.TestCase):
    def setUp(self):
        self.service = BlobServiceClient.from_connection_string(CONN)
        self.name = unique("py-")
        self.container = self.service.create_container(self.name)

    def tearDown(self):
        self.service.delete_container(self.name)

    def test_upload_download_properties(self):
        data = b"hello from python\n" * 1000
        client = self.container.get_blob_client("dir/a.txt")
        blob = client.upload_blob(data, metadata={"kind": "greeting"}, content_settings=ContentSettings(content_type="text/plain"))
        self.assertTrue(blob["etag"])
        self.assertEqual(self.container.download_blob("dir/a.txt").readall(), data)
        ranged = self.container.download_blob("dir/a.txt", offset=6, length=4).readall()
        self.assertEqual(ranged, b"from")
        props = client.get_blob_properties()
        self.assertEqual(props.size, len(data))
        self.assertEqual(props.content_settings.content_type, "text/plain")
        self.assertEqual(props.metadata, {"kind": "greeting"})
        self.assertEqual(props.etag, blob["etag"])

    def test_list_with_prefix(self):
        for name in ("logs/1", "logs/2", "logs/sub/3", "other"):
            self.container.upload_blob(name, b"x")
        self.assertEqual([b.name for b in self.container.list_blobs(name_starts_with="logs/")], ["logs/1", "logs/2", "logs/sub/3"])
        # The SDK puts a page's prefixes before its blobs.
        walked = [b.name for b in self.container.walk_blobs(name_starts_with="logs/", delimiter="/")]
        self.assertEqual(walked, ["logs/sub/", "logs/1", "logs/2"])
        containers = [c.name for c in self.service.list_containers(name_starts_with=self.name)]
        self.assertEqual(containers, [self.name])

    def test_conditional_write(self):
        client = self.container.get_blob_client("c.txt")
        first = client.upload_blob(b"v1")
        client.upload_blob(b"v2", overwrite=True, etag=first["etag"], match_condition=MatchConditions.IfNotModified)
        with self.assertRaises(ResourceModifiedError) as caught:
            client.upload_blob(b"v3", overwrite=True, etag=first["etag"], match_condition=MatchConditions.IfNotModified)
        self.assertEqual(caught.exception.status_code, 412)
        self.assertEqual(error_code(caught.exception), "ConditionNotMet")
        self.assertEqual(client.download_blob().readall(), b"v2")
        with self.assertRaises(ResourceExistsError):
            client.upload_blob(b"v4", overwrite=False)

    def test_delete(self):
        client = self.container.get_blob_client("d.txt")
        client.upload_blob(b"bye")
        client.delete_blob()
        with self.assertRaises(ResourceNotFoundError):
            client.download_blob()
        with self.assertRaises(ResourceNotFoundError):
            client.delete_blob()


class TAPResult(unittest.TestResult):
    """Writes one TAP line a test, and the totals node's reporter writes."""

    def __init__(self, out):
        super().__init__()
        self.out = out
        self.n = 0
        self.counts = {"pass": 0, "fail": 0, "skipped": 0}

    def line(self, ok, test, directive="", detail=""):
        self.n += 1
        name = test.id().split(".", 1)[-1]
        self.out.write("%s %d - %s%s\n" % ("ok" if ok else "not ok", self.n, name, directive))
        for text in detail.splitlines():
            self.out.write("  # " + text + "\n")
        self.out.flush()

    def addSuccess(self, test):
        self.counts["pass"] += 1
        self.line(True, test)

    def addFailure(self, test, err):
        self.counts["fail"] += 1
        self.line(False, test, detail="".join(traceback.format_exception(*err)))

    addError = addFailure

    def addSkip(self, test, reason):
        self.counts["skipped"] += 1
        self.line(True, test, directive=" # SKIP " + reason)


def main():
    if not CONN:
        sys.exit("STORAGE_CONNECTION_STRING names the server to walk")
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = TAPResult(sys.stdout)
    sys.stdout.write("TAP version 13\n")
    start = time.monotonic()
    suite.run(result)
    sys.stdout.write("1..%d\n" % result.n)
    for kind in ("pass", "fail", "skipped"):
        sys.stdout.write("# %s %d\n" % (kind, result.counts[kind]))
    sys.stdout.write("# duration_ms %d\n" % ((time.monotonic() - start) * 1000))
    sys.exit(1 if result.counts["fail"] else 0)


if __name__ == "__main__":
    main()
