// Package svcerr holds the error model shared by every layer of tablelab:
// an error is a value carrying the Azure storage service's error code, the
// HTTP status the service pairs with that code, and a message. The engine
// and the queue and blob models return them, the protocol layers write
// them in each service's error format (JSON for tables, XML for queues and
// blobs), and nothing in between needs to translate.
package svcerr

import (
	"strconv"
	"strings"
)

// Code is an error code string exactly as the service spells it.
type Code string

// The service's error codes that tablelab produces.
const (
	TableAlreadyExists                      Code = "TableAlreadyExists"
	TableNotFound                           Code = "TableNotFound"
	TableBeingDeleted                       Code = "TableBeingDeleted"
	ResourceNotFound                        Code = "ResourceNotFound"
	EntityAlreadyExists                     Code = "EntityAlreadyExists"
	UpdateConditionNotSatisfied             Code = "UpdateConditionNotSatisfied"
	InvalidResourceName                     Code = "InvalidResourceName"
	OutOfRangeInput                         Code = "OutOfRangeInput"
	InvalidInput                            Code = "InvalidInput"
	InvalidValueType                        Code = "InvalidValueType"
	PropertiesNeedValue                     Code = "PropertiesNeedValue"
	PropertyValueTooLarge                   Code = "PropertyValueTooLarge"
	EntityTooLarge                          Code = "EntityTooLarge"
	TooManyProperties                       Code = "TooManyProperties"
	PropertyNameTooLong                     Code = "PropertyNameTooLong"
	PropertyNameInvalid                     Code = "PropertyNameInvalid"
	DuplicatePropertiesSpecified            Code = "DuplicatePropertiesSpecified"
	CommandsInBatchActOnDifferentPartitions Code = "CommandsInBatchActOnDifferentPartitions"
	InvalidDuplicateRow                     Code = "InvalidDuplicateRow"
	MethodNotAllowed                        Code = "MethodNotAllowed"
	RequestBodyTooLarge                     Code = "RequestBodyTooLarge"
	AuthenticationFailed                    Code = "AuthenticationFailed"
	InvalidAuthenticationInfo               Code = "InvalidAuthenticationInfo"
	CorsPreflightFailure                    Code = "CorsPreflightFailure"
	AuthorizationFailure                    Code = "AuthorizationFailure"
	AuthorizationPermissionMismatch         Code = "AuthorizationPermissionMismatch"
	AuthorizationProtocolMismatch           Code = "AuthorizationProtocolMismatch"
	AuthorizationSourceIPMismatch           Code = "AuthorizationSourceIPMismatch"
	AuthorizationResourceTypeMismatch       Code = "AuthorizationResourceTypeMismatch"
	AuthorizationServiceMismatch            Code = "AuthorizationServiceMismatch"
	InvalidHeaderValue                      Code = "InvalidHeaderValue"
	MissingRequiredHeader                   Code = "MissingRequiredHeader"
	InvalidQueryParameterValue              Code = "InvalidQueryParameterValue"
	InvalidURI                              Code = "InvalidUri"
	UnsupportedHTTPVerb                     Code = "UnsupportedHttpVerb"
	AtomFormatNotSupported                  Code = "AtomFormatNotSupported"
	NotImplemented                          Code = "NotImplemented"
	InternalError                           Code = "InternalError"
	ServerBusy                              Code = "ServerBusy"
	OperationTimedOut                       Code = "OperationTimedOut"
)

// TableScanRefused is tablelab's own code, not the service's: the local
// server's -scan fail refuses a query that plans as a scan, so that a
// test suite that must never scan fails in CI (package scanguard).
const TableScanRefused Code = "TableScanRefused"

// Codes of the Queue and Blob services.
const (
	QueueAlreadyExists            Code = "QueueAlreadyExists"
	QueueNotFound                 Code = "QueueNotFound"
	QueueBeingDeleted             Code = "QueueBeingDeleted"
	MessageNotFound               Code = "MessageNotFound"
	PopReceiptMismatch            Code = "PopReceiptMismatch"
	MessageTooLarge               Code = "MessageTooLarge"
	ContainerAlreadyExists        Code = "ContainerAlreadyExists"
	ContainerNotFound             Code = "ContainerNotFound"
	ContainerBeingDeleted         Code = "ContainerBeingDeleted"
	BlobNotFound                  Code = "BlobNotFound"
	BlobAlreadyExists             Code = "BlobAlreadyExists"
	InvalidBlobType               Code = "InvalidBlobType"
	InvalidBlockID                Code = "InvalidBlockId"
	InvalidBlockList              Code = "InvalidBlockList"
	BlockCountExceedsLimit        Code = "BlockCountExceedsLimit"
	BlockListTooLong              Code = "BlockListTooLong"
	InvalidBlobOrBlock            Code = "InvalidBlobOrBlock"
	MD5Mismatch                   Code = "Md5Mismatch"
	InvalidMD5                    Code = "InvalidMd5"
	InvalidRange                  Code = "InvalidRange"
	ConditionNotMet               Code = "ConditionNotMet"
	MissingContentLengthHeader    Code = "MissingContentLengthHeader"
	InvalidXMLDocument            Code = "InvalidXmlDocument"
	InvalidXMLNodeValue           Code = "InvalidXmlNodeValue"
	MissingRequiredXMLNode        Code = "MissingRequiredXmlNode"
	MissingRequiredQueryParameter Code = "MissingRequiredQueryParameter"
	OutOfRangeQueryParameterValue Code = "OutOfRangeQueryParameterValue"
	UnsupportedQueryParameter     Code = "UnsupportedQueryParameter"
	UnsupportedHeader             Code = "UnsupportedHeader"
	EmptyMetadataKey              Code = "EmptyMetadataKey"
	InvalidMetadata               Code = "InvalidMetadata"
	MetadataTooLarge              Code = "MetadataTooLarge"
)

type codeInfo struct {
	status  int
	message string
}

var codes = map[Code]codeInfo{
	TableAlreadyExists:                      {409, "The table specified already exists."},
	TableNotFound:                           {404, "The table specified does not exist."},
	TableBeingDeleted:                       {409, "The specified table is being deleted."},
	ResourceNotFound:                        {404, "The specified resource does not exist."},
	EntityAlreadyExists:                     {409, "The specified entity already exists."},
	UpdateConditionNotSatisfied:             {412, "The update condition specified in the request was not satisfied."},
	InvalidResourceName:                     {400, "The specifed resource name contains invalid characters."},
	OutOfRangeInput:                         {400, "One of the request inputs is out of range."},
	InvalidInput:                            {400, "One of the request inputs is not valid."},
	InvalidValueType:                        {400, "The value specified is invalid."},
	PropertiesNeedValue:                     {400, "The values are not specified for all properties in the entity."},
	PropertyValueTooLarge:                   {400, "The property value exceeds the maximum allowed size (64KB). If the property value is a string, it is UTF-16 encoded and the maximum number of characters should be 32K or less."},
	EntityTooLarge:                          {400, "The entity is larger than the maximum size permitted."},
	TooManyProperties:                       {400, "The entity contains more properties than allowed."},
	PropertyNameTooLong:                     {400, "The property name exceeds the maximum allowed length."},
	PropertyNameInvalid:                     {400, "The property name is invalid."},
	DuplicatePropertiesSpecified:            {400, "A property is specified more than one time."},
	CommandsInBatchActOnDifferentPartitions: {400, "All commands in a batch must operate on same entity group."},
	InvalidDuplicateRow:                     {400, "The batch request contains multiple changes with same row key. An entity can appear only once in a batch request."},
	MethodNotAllowed:                        {405, "The requested method is not allowed on the specified resource."},
	RequestBodyTooLarge:                     {413, "The request body is too large and exceeds the maximum permissible limit."},
	AuthenticationFailed:                    {403, "Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature."},
	CorsPreflightFailure:                    {403, "CORS not enabled or no matching rule found for this request."},
	InvalidAuthenticationInfo:               {400, "Authentication information is not given in the correct format. Check the value of Authorization header."},
	AuthorizationFailure:                    {403, "This request is not authorized to perform this operation."},
	AuthorizationPermissionMismatch:         {403, "This request is not authorized to perform this operation using this permission."},
	AuthorizationProtocolMismatch:           {403, "This request is not authorized to perform this operation using this protocol."},
	AuthorizationSourceIPMismatch:           {403, "This request is not authorized to perform this operation using this source IP."},
	AuthorizationResourceTypeMismatch:       {403, "This request is not authorized to perform this operation using this resource type."},
	AuthorizationServiceMismatch:            {403, "This request is not authorized to perform this operation using this service."},
	InvalidHeaderValue:                      {400, "The value for one of the HTTP headers is not in the correct format."},
	MissingRequiredHeader:                   {400, "An HTTP header that's mandatory for this request is not specified."},
	InvalidQueryParameterValue:              {400, "Value for one of the query parameters specified in the request URI is invalid."},
	InvalidURI:                              {400, "The requested URI does not represent any resource on the server."},
	UnsupportedHTTPVerb:                     {405, "The resource doesn't support specified Http Verb."},
	AtomFormatNotSupported:                  {415, "Atom format is not supported."},
	NotImplemented:                          {501, "The requested operation is not implemented on the specified resource."},
	InternalError:                           {500, "The server encountered an internal error. Please retry the request."},
	ServerBusy:                              {503, "The server is currently unable to receive requests. Please retry your request."},
	OperationTimedOut:                       {500, "The operation could not be completed within the permitted time."},
	TableScanRefused:                        {400, "The query reads a whole table, which this server refuses (-scan fail)."},

	QueueAlreadyExists:            {409, "The specified queue already exists."},
	QueueNotFound:                 {404, "The specified queue does not exist."},
	QueueBeingDeleted:             {409, "The specified queue is being deleted."},
	MessageNotFound:               {404, "The specified message does not exist."},
	PopReceiptMismatch:            {400, "The specified pop receipt did not match the pop receipt for a dequeued message."},
	MessageTooLarge:               {400, "The message exceeds the maximum allowed size."},
	ContainerAlreadyExists:        {409, "The specified container already exists."},
	ContainerNotFound:             {404, "The specified container does not exist."},
	ContainerBeingDeleted:         {409, "The specified container is being deleted."},
	BlobNotFound:                  {404, "The specified blob does not exist."},
	BlobAlreadyExists:             {409, "The specified blob already exists."},
	InvalidBlobType:               {409, "The blob type is invalid for this operation."},
	InvalidBlockID:                {400, "The specified block ID is invalid. The block ID must be Base64-encoded."},
	InvalidBlockList:              {400, "The specified block list is invalid."},
	BlockCountExceedsLimit:        {409, "The uncommitted block count cannot exceed the maximum limit of 100,000 blocks."},
	BlockListTooLong:              {400, "The block list may not contain more than 50,000 blocks."},
	InvalidBlobOrBlock:            {400, "The specified blob or block content is invalid."},
	MD5Mismatch:                   {400, "The MD5 value specified in the request did not match with the MD5 value calculated by the server."},
	InvalidMD5:                    {400, "The MD5 value specified in the request is invalid. The MD5 value must be 128 bits and Base64-encoded."},
	InvalidRange:                  {416, "The range specified is invalid for the current size of the resource."},
	ConditionNotMet:               {412, "The condition specified using HTTP conditional header(s) is not met."},
	MissingContentLengthHeader:    {411, "The Content-Length header was not specified."},
	InvalidXMLDocument:            {400, "XML specified is not syntactically valid."},
	InvalidXMLNodeValue:           {400, "The value for one of the XML nodes is not in the correct format."},
	MissingRequiredXMLNode:        {400, "A required XML node is not specified in the request body."},
	MissingRequiredQueryParameter: {400, "A query parameter that's mandatory for this request is not specified."},
	OutOfRangeQueryParameterValue: {400, "One of the query parameters specified in the request URI is outside the permissible range."},
	UnsupportedQueryParameter:     {400, "One of the query parameters specified in the request URI is not supported."},
	UnsupportedHeader:             {400, "One of the HTTP headers specified in the request is not supported."},
	EmptyMetadataKey:              {400, "The key for one of the metadata key-value pairs is empty."},
	InvalidMetadata:               {400, "The metadata specified is invalid. It has characters that are not permitted."},
	MetadataTooLarge:              {400, "The size of the specified metadata exceeds the maximum size permitted."},
}

// Status returns the HTTP status the service answers with for the code.
func (c Code) Status() int {
	if info, ok := codes[c]; ok {
		return info.status
	}
	return 500
}

// Message returns the service's standard message for the code.
//
// Message, New and With are not inlined: hundreds of error paths call
// them, and a copy of the map lookup and the allocation at each one was
// the largest avoidable weight of the browser build (docs/benchmarks.md),
// for calls made only when a request fails.
//
//go:noinline
func (c Code) Message() string { return codes[c].message }

// Error is a service error: a code, its message, and, inside an entity group
// transaction, the index of the operation that failed.
type Error struct {
	Code    Code
	Message string
	// Index is the 0-based position of the failing operation within a
	// batch, or -1 outside one.
	Index int
}

// New returns an error with the code's standard message.
//
//go:noinline
func New(code Code) *Error { return &Error{Code: code, Message: code.Message(), Index: -1} }

// With returns an error with a message of its own. Messages are built by
// concatenation and strconv rather than with fmt, which the browser build
// cannot afford.
//
//go:noinline
func With(code Code, message string) *Error {
	return &Error{Code: code, Message: message, Index: -1}
}

// Error returns "Code: message".
func (e *Error) Error() string {
	if e.Index >= 0 {
		return string(e.Code) + ": " + strconv.Itoa(e.Index) + ":" + e.Message
	}
	return string(e.Code) + ": " + e.Message
}

// Status returns the HTTP status of the error's code.
func (e *Error) Status() int { return e.Code.Status() }

// AtIndex returns a copy of e naming operation i of a batch.
func (e *Error) AtIndex(i int) *Error {
	c := *e
	c.Index = i
	return &c
}

// From returns err as an *Error. An error that is not one becomes an
// InternalError, so every failure has a code and a status.
func From(err error) *Error {
	if e := find(err); e != nil {
		return e
	}
	return &Error{Code: InternalError, Message: InternalError.Message(), Index: -1}
}

// Clause returns a message ready to be continued: trimmed, without the
// period that ends it, and with its first letter a capital. A caller that
// adds where a failure happened (" at position 6") or which operation
// failed then ends the whole with one period, and the message still
// reads as one sentence.
func Clause(msg string) string {
	msg = strings.TrimSuffix(strings.TrimSpace(msg), ".")
	if msg != "" && msg[0] >= 'a' && msg[0] <= 'z' {
		msg = string(msg[0]-'a'+'A') + msg[1:]
	}
	return msg
}

// Is reports whether err is a service error with the given code.
func Is(err error, code Code) bool {
	e := find(err)
	return e != nil && e.Code == code
}

// find is errors.As for *Error, which needs no reflection: errors.As
// links internal/reflectlite's type comparison into the browser build.
// It unwraps the same chains (Unwrap() error and Unwrap() []error, depth
// first) and ignores As methods, which no error of tablelab has.
func find(err error) *Error {
	for err != nil {
		switch x := err.(type) {
		case *Error:
			return x
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if f := find(e); f != nil {
					return f
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}
