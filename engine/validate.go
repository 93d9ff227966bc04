package engine

import (
	"unicode"
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Limits of the service, enforced with its error codes.
const (
	// MaxKeyUTF16 is the size limit of PartitionKey and RowKey: 1 KiB of
	// UTF-16, 512 code units.
	MaxKeyUTF16 = 512
	// MaxProperties is the number of properties an entity may have besides
	// PartitionKey, RowKey and Timestamp (255 in all).
	MaxProperties = 252
	// MaxPropertyNameLen is the longest property name, in characters.
	MaxPropertyNameLen = 255
	// MaxStringUTF16 is the longest Edm.String: 64 KiB of UTF-16.
	MaxStringUTF16 = 32 * 1024
	// MaxBinaryLen is the longest Edm.Binary in bytes.
	MaxBinaryLen = 64 * 1024
	// MaxEntitySize is the largest entity, as the service measures it.
	MaxEntitySize = 1 << 20
	// MaxBatchOperations is the most operations one batch may hold.
	MaxBatchOperations = 100
	// MaxPageSize is the most entities (or tables) one page returns.
	MaxPageSize = 1000
)

// validateKey checks a PartitionKey or RowKey value.
func validateKey(which, k string) error {
	ascii := true
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c >= 0x7f || c == '/' || c == '\\' || c == '#' || c == '?' {
			ascii = false
			break
		}
	}
	if ascii {
		if len(k) > MaxKeyUTF16 {
			return svcerr.New(svcerr.PropertyValueTooLarge)
		}
		return nil // the common case: printable ASCII, nothing to decode
	}
	for _, r := range k {
		if r == '/' || r == '\\' || r == '#' || r == '?' || r < 0x20 || r >= 0x7f && r <= 0x9f {
			return outOfRange(which, k)
		}
	}
	if !utf8.ValidString(k) {
		return outOfRange(which, k)
	}
	if len(k) > MaxKeyUTF16 && edm.UTF16Len(k) > MaxKeyUTF16 {
		return svcerr.New(svcerr.PropertyValueTooLarge)
	}
	return nil
}

// ValidateKeys checks a PartitionKey and RowKey pair against the service's
// rules for key characters and size.
func ValidateKeys(pk, rk string) error {
	if err := validateKey(PartitionKeyName, pk); err != nil {
		return err
	}
	return validateKey(RowKeyName, rk)
}

// validPropertyName reports whether name is a property name the service
// accepts: an identifier in the manner of C#, a letter or underscore
// followed by letters, digits and underscores.
func validPropertyName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_' || r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
		case r < utf8.RuneSelf && r >= '0' && r <= '9':
			if i == 0 {
				return false
			}
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r))):
		default:
			return false
		}
	}
	return true
}

// ValidatePropertyName checks the name of a property an entity sets
// against the service's rules: an identifier (validPropertyName) of at
// most MaxPropertyNameLen characters, and none of the names of the
// system properties.
func ValidatePropertyName(name string) error {
	if len(name) > MaxPropertyNameLen && utf8.RuneCountInString(name) > MaxPropertyNameLen {
		return svcerr.New(svcerr.PropertyNameTooLong)
	}
	switch name {
	case PartitionKeyName, RowKeyName, TimestampName:
		return svcerr.With(svcerr.PropertyNameInvalid, "The property name "+name+" is reserved.")
	}
	if !validPropertyName(name) {
		return svcerr.New(svcerr.PropertyNameInvalid)
	}
	return nil
}

// checkKeys checks a pair of keys against the store's rules: the
// service's, or with OpenKeys only that they are text of bounded size.
func (s *Store) checkKeys(pk, rk string) error {
	if !s.openKeys {
		return ValidateKeys(pk, rk)
	}
	for _, k := range [2]string{pk, rk} {
		if len(k) > MaxOpenKeyBytes {
			return svcerr.New(svcerr.PropertyValueTooLarge)
		}
		if !utf8.ValidString(k) {
			return svcerr.New(svcerr.InvalidInput)
		}
	}
	return nil
}

// validateEntity checks an entity against every limit of the service.
// Properties must be sorted by name, which also makes duplicates adjacent.
func (s *Store) validateEntity(e *Entity) error {
	if err := s.checkKeys(e.PartitionKey, e.RowKey); err != nil {
		return err
	}
	if len(e.Properties) > MaxProperties {
		return svcerr.New(svcerr.TooManyProperties)
	}
	// Byte lengths bound UTF-16 lengths from above, so the exact count is
	// needed only when the cheap bound passes the limit.
	size := 4 + 2*(len(e.PartitionKey)+len(e.RowKey))
	for i := range e.Properties {
		p := &e.Properties[i]
		if i > 0 && e.Properties[i-1].Name == p.Name {
			return svcerr.New(svcerr.DuplicatePropertiesSpecified)
		}
		if err := ValidatePropertyName(p.Name); err != nil {
			return err
		}
		v := p.Value
		switch v.Kind() {
		case edm.String:
			if len(v.Str()) > MaxStringUTF16 && edm.UTF16Len(v.Str()) > MaxStringUTF16 {
				return svcerr.New(svcerr.PropertyValueTooLarge)
			}
		case edm.Binary:
			if len(v.Str()) > MaxBinaryLen {
				return svcerr.New(svcerr.PropertyValueTooLarge)
			}
		case edm.DateTime:
			if v.Ticks() < edm.MinDateTimeTicks || v.Ticks() > edm.MaxDateTimeTicks {
				return outOfRange(p.Name, v.Time().Format("01/02/2006 15:04:05"))
			}
		case edm.Invalid:
			return svcerr.With(svcerr.InvalidInput, "The property "+p.Name+" has no value.")
		}
		size += 8 + 2*len(p.Name) + 4 + 2*len(v.Str()) + 8
	}
	if size > MaxEntitySize && EntitySize(e) > MaxEntitySize {
		return svcerr.New(svcerr.EntityTooLarge)
	}
	return nil
}

// EntitySize returns the size of an entity as the service counts it
// against its 1 MiB limit: 4 bytes, twice the UTF-16 length of both keys,
// and for each property 8 bytes, twice its name's UTF-16 length and the
// size of its value.
func EntitySize(e *Entity) int {
	size := 4 + 2*(edm.UTF16Len(e.PartitionKey)+edm.UTF16Len(e.RowKey))
	for i := range e.Properties {
		p := &e.Properties[i]
		size += 8 + 2*edm.UTF16Len(p.Name) + p.Value.Size()
	}
	return size
}

// outOfRange is the service's answer to a key or a DateTime it will not
// store, quoting the parameter and the value as it read them.
func outOfRange(param, value string) error {
	return svcerr.With(svcerr.OutOfRangeInput, "The '"+param+"' parameter of value '"+value+"' is out of range.")
}
