// Package svcerr holds the error model shared by every layer of tablelab:
// an error is a value carrying the Azure Table service's error code, the
// HTTP status the service pairs with that code, and a message. The engine
// returns them, the protocol layer writes them in the service's JSON error
// format, and nothing in between needs to translate.
package svcerr

import (
	"errors"
	"fmt"
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
	AuthorizationFailure                    Code = "AuthorizationFailure"
	AuthorizationPermissionMismatch         Code = "AuthorizationPermissionMismatch"
	AuthorizationProtocolMismatch           Code = "AuthorizationProtocolMismatch"
	AuthorizationSourceIPMismatch           Code = "AuthorizationSourceIPMismatch"
	AuthorizationResourceTypeMismatch       Code = "AuthorizationResourceTypeMismatch"
	InvalidHeaderValue                      Code = "InvalidHeaderValue"
	MissingRequiredHeader                   Code = "MissingRequiredHeader"
	InvalidQueryParameterValue              Code = "InvalidQueryParameterValue"
	InvalidURI                              Code = "InvalidUri"
	UnsupportedHTTPVerb                     Code = "UnsupportedHttpVerb"
	AtomFormatNotSupported                  Code = "AtomFormatNotSupported"
	NotImplemented                          Code = "NotImplemented"
	InternalError                           Code = "InternalError"
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
	AuthorizationFailure:                    {403, "This request is not authorized to perform this operation."},
	AuthorizationPermissionMismatch:         {403, "This request is not authorized to perform this operation using this permission."},
	AuthorizationProtocolMismatch:           {403, "This request is not authorized to perform this operation using this protocol."},
	AuthorizationSourceIPMismatch:           {403, "This request is not authorized to perform this operation using this source IP."},
	AuthorizationResourceTypeMismatch:       {403, "This request is not authorized to perform this operation using this resource type."},
	InvalidHeaderValue:                      {400, "The value for one of the HTTP headers is not in the correct format."},
	MissingRequiredHeader:                   {400, "An HTTP header that's mandatory for this request is not specified."},
	InvalidQueryParameterValue:              {400, "Value for one of the query parameters specified in the request URI is invalid."},
	InvalidURI:                              {400, "The requested URI does not represent any resource on the server."},
	UnsupportedHTTPVerb:                     {405, "The resource doesn't support specified Http Verb."},
	AtomFormatNotSupported:                  {415, "Atom format is not supported."},
	NotImplemented:                          {501, "The requested operation is not implemented on the specified resource."},
	InternalError:                           {500, "The server encountered an internal error. Please retry the request."},
}

// Status returns the HTTP status the service answers with for the code.
func (c Code) Status() int {
	if info, ok := codes[c]; ok {
		return info.status
	}
	return 500
}

// Message returns the service's standard message for the code.
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
func New(code Code) *Error { return &Error{Code: code, Message: code.Message(), Index: -1} }

// Newf returns an error with a message of its own.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Index: -1}
}

// Error returns "Code: message".
func (e *Error) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("%s: %d:%s", e.Code, e.Index, e.Message)
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
	var e *Error
	if errors.As(err, &e) {
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
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
