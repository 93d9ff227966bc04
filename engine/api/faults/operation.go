package faults

import (
	"strings"

	"github.com/tablelab/tablelab/engine/api"
)

// Operation names the REST operation req asks of service ("table",
// "queue" or "blob") as the service's reference does, and the table,
// queue or container its path names. A request the names below do not
// cover is named by its HTTP method.
//
//	table  QueryTables CreateTable DeleteTable QueryEntities QueryEntity
//	       InsertEntity UpdateEntity MergeEntity InsertOrReplaceEntity
//	       InsertOrMergeEntity DeleteEntity EntityGroupTransaction
//	       GetTableACL SetTableACL GetTableServiceProperties
//	       SetTableServiceProperties GetTableServiceStats
//	queue  ListQueues CreateQueue DeleteQueue GetQueueMetadata
//	       SetQueueMetadata PutMessage GetMessages PeekMessages
//	       DeleteMessage UpdateMessage ClearMessages
//	blob   ListContainers CreateContainer DeleteContainer
//	       GetContainerProperties GetContainerMetadata SetContainerMetadata
//	       ListBlobs PutBlob GetBlob GetBlobProperties DeleteBlob PutBlock
//	       PutBlockList GetBlockList GetBlobMetadata SetBlobMetadata
//	       SetBlobProperties
func Operation(service string, req *api.Request) (op, resource string) {
	switch service {
	case "table":
		return tableOperation(req)
	case "queue":
		return queueOperation(req)
	}
	return blobOperation(req)
}

func tableOperation(req *api.Request) (string, string) {
	t, err := api.Locate(req)
	if err != nil {
		return req.Method, ""
	}
	method := req.Method
	if x := req.Header.Get("X-HTTP-Method"); method == "POST" && x != "" {
		method = x
	}
	name := ""
	switch t.Kind {
	case api.KindService:
		name = pick(method, t.Param("comp"), tableAccount)
	case api.KindTables, api.KindTable:
		name = pick(method, "", tableTables)
	case api.KindEntities:
		name = pick(method, t.Param("comp"), tableEntities)
	case api.KindEntity:
		conditional := req.Header.Get("If-Match") != ""
		switch method {
		case "GET":
			name = "QueryEntity"
		case "PUT":
			name = "InsertOrReplaceEntity"
			if conditional {
				name = "UpdateEntity"
			}
		case "PATCH", "MERGE":
			name = "InsertOrMergeEntity"
			if conditional {
				name = "MergeEntity"
			}
		case "DELETE":
			name = "DeleteEntity"
		}
	case api.KindBatch:
		name = "EntityGroupTransaction"
	}
	if name == "" {
		name = req.Method
	}
	return name, t.Table
}

// The operations' names by "METHOD comp", for each kind of path.
var (
	tableAccount = map[string]string{
		"GET properties": "GetTableServiceProperties", "PUT properties": "SetTableServiceProperties", "GET stats": "GetTableServiceStats"}
	tableTables   = map[string]string{"GET ": "QueryTables", "POST ": "CreateTable", "DELETE ": "DeleteTable"}
	tableEntities = map[string]string{
		"GET ": "QueryEntities", "POST ": "InsertEntity", "GET acl": "GetTableACL", "PUT acl": "SetTableACL"}
	queueAccount = map[string]string{"GET list": "ListQueues"}
	queueQueue   = map[string]string{
		"PUT ": "CreateQueue", "DELETE ": "DeleteQueue", "GET metadata": "GetQueueMetadata",
		"HEAD metadata": "GetQueueMetadata", "PUT metadata": "SetQueueMetadata"}
	queueMessages = map[string]string{"POST ": "PutMessage", "GET ": "GetMessages", "DELETE ": "ClearMessages"}
	queueMessage  = map[string]string{"DELETE ": "DeleteMessage", "PUT ": "UpdateMessage"}
	blobAccount   = map[string]string{"GET list": "ListContainers"}
	blobContainer = map[string]string{
		"PUT ": "CreateContainer", "DELETE ": "DeleteContainer", "GET ": "GetContainerProperties",
		"HEAD ": "GetContainerProperties", "GET metadata": "GetContainerMetadata",
		"HEAD metadata": "GetContainerMetadata", "PUT metadata": "SetContainerMetadata", "GET list": "ListBlobs"}
	blobBlob = map[string]string{
		"PUT ": "PutBlob", "GET ": "GetBlob", "HEAD ": "GetBlobProperties", "DELETE ": "DeleteBlob",
		"PUT block": "PutBlock", "PUT blocklist": "PutBlockList", "GET blocklist": "GetBlockList",
		"GET metadata": "GetBlobMetadata", "HEAD metadata": "GetBlobMetadata", "PUT metadata": "SetBlobMetadata",
		"PUT properties": "SetBlobProperties"}
)

// pick finds "METHOD comp" in names.
func pick(method, comp string, names map[string]string) string {
	return names[method+" "+comp]
}

func queueOperation(req *api.Request) (string, string) {
	_, rest, _, q, err := api.AddressQuery(req)
	if err != nil {
		return req.Method, ""
	}
	parts := strings.Split(rest, "/")
	comp, name := q.Get("comp"), ""
	switch len(parts) {
	case 1:
		if parts[0] == "" {
			name = pick(req.Method, comp, queueAccount)
			break
		}
		name = pick(req.Method, comp, queueQueue)
	case 2:
		name = pick(req.Method, "", queueMessages)
		if name == "GetMessages" && q.Get("peekonly") == "true" {
			name = "PeekMessages"
		}
	case 3:
		name = pick(req.Method, "", queueMessage)
	}
	if name == "" {
		name = req.Method
	}
	return name, parts[0]
}

func blobOperation(req *api.Request) (string, string) {
	_, rest, _, q, err := api.AddressQuery(req)
	if err != nil {
		return req.Method, ""
	}
	container, blob, _ := strings.Cut(rest, "/")
	comp, name := q.Get("comp"), ""
	switch {
	case container == "":
		name = pick(req.Method, comp, blobAccount)
	case blob == "" && q.Get("restype") == "container":
		name = pick(req.Method, comp, blobContainer)
	case blob != "":
		name = pick(req.Method, comp, blobBlob)
	}
	if name == "" {
		name = req.Method
	}
	return name, container
}
