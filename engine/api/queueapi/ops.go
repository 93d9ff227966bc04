package queueapi

import (
	"strconv"
	"time"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// maxSeconds is the longest visibility timeout, in seconds.
const maxSeconds = int64(queue.MaxVisibilityTimeout / time.Second)

func (c *call) check(p auth.Permission, l auth.Level) error {
	return c.grant.CheckQueue(p, l, c.rt.queue)
}

// metadata reads the request's x-ms-meta-* headers.
func (c *call) metadata() ([]queue.Pair, error) {
	m, err := xmlwire.Metadata(&c.req.Header)
	if err != nil {
		return nil, err
	}
	out := make([]queue.Pair, len(m))
	for i, p := range m {
		out[i] = queue.Pair(p)
	}
	return out, nil
}

func (c *call) listQueues() error {
	if err := c.grant.CheckQueue(auth.List, auth.ServiceLevel, ""); err != nil {
		return err
	}
	q := c.rt.query
	max, hasMax, err := c.intParam("maxresults", 1, 1<<31-1)
	if err != nil {
		return err
	}
	include := q.Get("include")
	if include != "" && include != "metadata" {
		return &paramError{err: svcerr.New(svcerr.InvalidQueryParameterValue), name: "include", value: include}
	}
	prefix, marker := q.Get("prefix"), q.Get("marker")
	page, err := c.s.svc.List(c.rt.account, queue.ListOptions{
		Prefix:     prefix,
		Marker:     marker,
		MaxResults: int(min(max, queue.MaxListResults)),
		Metadata:   include == "metadata",
	})
	if err != nil {
		return err
	}
	b := append([]byte(nil), xmlwire.Declaration...)
	b = append(b, `<EnumerationResults ServiceEndpoint="`...)
	b = xmlwire.AppendEscaped(b, c.rt.base+"/")
	b = append(b, `">`...)
	if q.Has("prefix") {
		b = xmlwire.AppendElement(b, "Prefix", prefix)
	}
	if q.Has("marker") {
		b = xmlwire.AppendElement(b, "Marker", marker)
	}
	if hasMax {
		b = xmlwire.AppendElement(b, "MaxResults", strconv.FormatInt(max, 10))
	}
	if len(page.Queues) == 0 {
		b = append(b, "<Queues />"...)
	} else {
		b = append(b, "<Queues>"...)
		for _, qu := range page.Queues {
			b = append(b, "<Queue>"...)
			b = xmlwire.AppendElement(b, "Name", qu.Name)
			if include == "metadata" {
				m := make([]xmlwire.Pair, len(qu.Metadata))
				for i, p := range qu.Metadata {
					m[i] = xmlwire.Pair(p)
				}
				b = xmlwire.AppendMetadata(b, m)
			}
			b = append(b, "</Queue>"...)
		}
		b = append(b, "</Queues>"...)
	}
	if page.NextMarker == "" {
		b = append(b, "<NextMarker />"...)
	} else {
		b = xmlwire.AppendElement(b, "NextMarker", page.NextMarker)
	}
	b = append(b, "</EnumerationResults>"...)
	c.xml(200, b)
	return nil
}

func (c *call) createQueue() error {
	if err := c.check(auth.Create, auth.ContainerLevel); err != nil {
		return err
	}
	meta, err := c.metadata()
	if err != nil {
		return err
	}
	created, err := c.s.svc.Create(c.rt.account, c.rt.queue, meta)
	if err != nil {
		return err
	}
	c.resp.Status = 204
	if created {
		c.resp.Status = 201
	}
	return nil
}

func (c *call) deleteQueue() error {
	if err := c.check(auth.Delete, auth.ContainerLevel); err != nil {
		return err
	}
	if err := c.s.svc.Delete(c.rt.account, c.rt.queue); err != nil {
		return err
	}
	c.resp.Status = 204
	return nil
}

func (c *call) getMetadata() error {
	if err := c.check(auth.Read, auth.ContainerLevel); err != nil {
		return err
	}
	q, n, err := c.s.svc.Properties(c.rt.account, c.rt.queue)
	if err != nil {
		return err
	}
	h := &c.resp.Header
	h.Set("x-ms-approximate-messages-count", strconv.Itoa(n))
	for _, p := range q.Metadata {
		h.Set(xmlwire.MetaPrefix+p.Name, p.Value)
	}
	c.resp.Status = 200
	return nil
}

func (c *call) setMetadata() error {
	if err := c.check(auth.Write, auth.ContainerLevel); err != nil {
		return err
	}
	meta, err := c.metadata()
	if err != nil {
		return err
	}
	if err := c.s.svc.SetMetadata(c.rt.account, c.rt.queue, meta); err != nil {
		return err
	}
	c.resp.Status = 204
	return nil
}

// messageText reads the text of a <QueueMessage> body. An update may leave
// MessageText out, which keeps the message's text; required says whether
// it must be there.
func messageText(body []byte, required bool) (*string, error) {
	if len(body) == 0 {
		if required {
			return nil, svcerr.With(svcerr.InvalidXMLDocument, "The request body is empty; a QueueMessage element is needed.")
		}
		return nil, nil
	}
	root, err := xmlwire.Parse(body)
	if err != nil {
		return nil, err
	}
	if root.Name != "QueueMessage" {
		return nil, svcerr.With(svcerr.InvalidXMLDocument, "The root element is "+root.Name+", not QueueMessage.")
	}
	t := root.Child("MessageText")
	if t == nil {
		if required {
			return nil, svcerr.With(svcerr.MissingRequiredXMLNode, "The QueueMessage element has no MessageText.")
		}
		return nil, nil
	}
	if len(t.Children) > 0 {
		return nil, svcerr.With(svcerr.InvalidXMLNodeValue, "MessageText holds elements; it takes text only.")
	}
	text := t.Text
	return &text, nil
}

func (c *call) putMessage() error {
	if err := c.check(auth.Add, auth.ObjectLevel); err != nil {
		return err
	}
	vt, _, err := c.intParam("visibilitytimeout", 0, maxSeconds)
	if err != nil {
		return err
	}
	ttl, hasTTL, err := c.intParam("messagettl", -1, 1<<62)
	if err != nil {
		return err
	}
	if hasTTL && ttl == 0 {
		return &paramError{
			err:    svcerr.New(svcerr.InvalidQueryParameterValue),
			name:   "messagettl",
			value:  "0",
			reason: "Value must be greater than or equal to 1, or -1 to indicate an infinite TTL.",
		}
	}
	effective := int64(queue.DefaultTTL / time.Second)
	if hasTTL {
		effective = ttl
	}
	if effective != -1 && vt >= effective {
		return &paramError{
			err:    svcerr.New(svcerr.InvalidQueryParameterValue),
			name:   "visibilitytimeout",
			value:  strconv.FormatInt(vt, 10),
			reason: "messagettl must be greater than visibilitytimeout.",
		}
	}
	body, err := c.body()
	if err != nil {
		return err
	}
	text, err := messageText(body, true)
	if err != nil {
		return err
	}
	o := queue.PutOptions{VisibilityTimeout: seconds(vt), NewID: c.s.ids}
	switch {
	case ttl == -1:
		o.TTL = -1
	case hasTTL:
		// Beyond what a Duration holds, a TTL never ends either.
		if ttl > int64(1<<63-1)/int64(time.Second) {
			o.TTL = -1
		} else {
			o.TTL = seconds(ttl)
		}
	}
	m, err := c.s.svc.Put(c.rt.account, c.rt.queue, *text, o)
	if err != nil {
		return err
	}
	b := append([]byte(nil), xmlwire.Declaration...)
	b = append(b, "<QueueMessagesList><QueueMessage>"...)
	b = xmlwire.AppendElement(b, "MessageId", m.ID)
	b = xmlwire.AppendElement(b, "InsertionTime", httpDate(m.Inserted))
	b = xmlwire.AppendElement(b, "ExpirationTime", httpDate(m.Expires))
	b = xmlwire.AppendElement(b, "PopReceipt", m.PopReceipt)
	b = xmlwire.AppendElement(b, "TimeNextVisible", httpDate(m.NextVisible))
	b = append(b, "</QueueMessage></QueueMessagesList>"...)
	c.xml(201, b)
	return nil
}

func (c *call) count() (int, error) {
	n, ok, err := c.intParam("numofmessages", 1, queue.MaxMessages)
	if !ok {
		n = 1
	}
	return int(n), err
}

func (c *call) getMessages() error {
	if err := c.check(auth.Process, auth.ObjectLevel); err != nil {
		return err
	}
	n, err := c.count()
	if err != nil {
		return err
	}
	vt, ok, err := c.intParam("visibilitytimeout", 1, maxSeconds)
	if err != nil {
		return err
	}
	o := queue.GetOptions{Count: n, NewID: c.s.ids}
	if ok {
		o.VisibilityTimeout = seconds(vt)
	}
	msgs, err := c.s.svc.Get(c.rt.account, c.rt.queue, o)
	if err != nil {
		return err
	}
	c.xml(200, appendMessages(nil, msgs, false))
	return nil
}

func (c *call) peekMessages() error {
	if err := c.check(auth.Read, auth.ObjectLevel); err != nil {
		return err
	}
	n, err := c.count()
	if err != nil {
		return err
	}
	msgs, err := c.s.svc.Peek(c.rt.account, c.rt.queue, n)
	if err != nil {
		return err
	}
	c.xml(200, appendMessages(nil, msgs, true))
	return nil
}

// appendMessages appends the QueueMessagesList of Get Messages, or of Peek
// Messages, which leaves out the pop receipt and next-visible time.
func appendMessages(b []byte, msgs []queue.Message, peek bool) []byte {
	b = append(b, xmlwire.Declaration...)
	if len(msgs) == 0 {
		return append(b, "<QueueMessagesList />"...)
	}
	b = append(b, "<QueueMessagesList>"...)
	for _, m := range msgs {
		b = append(b, "<QueueMessage>"...)
		b = xmlwire.AppendElement(b, "MessageId", m.ID)
		b = xmlwire.AppendElement(b, "InsertionTime", httpDate(m.Inserted))
		b = xmlwire.AppendElement(b, "ExpirationTime", httpDate(m.Expires))
		if !peek {
			b = xmlwire.AppendElement(b, "PopReceipt", m.PopReceipt)
			b = xmlwire.AppendElement(b, "TimeNextVisible", httpDate(m.NextVisible))
		}
		b = xmlwire.AppendElement(b, "DequeueCount", strconv.FormatInt(m.DequeueCount, 10))
		b = xmlwire.AppendElement(b, "MessageText", m.Text)
		b = append(b, "</QueueMessage>"...)
	}
	return append(b, "</QueueMessagesList>"...)
}

// popReceipt reads the popreceipt parameter, which the message operations
// require. One no service could have issued (a "+" sent unescaped arrives
// as a space) is refused here, with the parameter and the reason the
// service gives in the error body (MicrosoftDocs/feedback#2842), before
// the queue or message is looked for.
func (c *call) popReceipt() (string, error) {
	if !c.rt.query.Has("popreceipt") {
		return "", &paramError{err: svcerr.New(svcerr.MissingRequiredQueryParameter), name: "popreceipt"}
	}
	r := c.rt.query.Get("popreceipt")
	if !queue.WellFormedReceipt(r) {
		return "", &paramError{
			err:    svcerr.New(svcerr.InvalidQueryParameterValue),
			name:   "popreceipt",
			value:  r,
			reason: "Invalid pop receipt format",
		}
	}
	return r, nil
}

func (c *call) updateMessage() error {
	if err := c.check(auth.Update, auth.ObjectLevel); err != nil {
		return err
	}
	receipt, err := c.popReceipt()
	if err != nil {
		return err
	}
	if !c.rt.query.Has("visibilitytimeout") {
		return &paramError{err: svcerr.New(svcerr.MissingRequiredQueryParameter), name: "visibilitytimeout"}
	}
	vt, _, err := c.intParam("visibilitytimeout", 0, maxSeconds)
	if err != nil {
		return err
	}
	body, err := c.body()
	if err != nil {
		return err
	}
	text, err := messageText(body, false)
	if err != nil {
		return err
	}
	m, err := c.s.svc.Update(c.rt.account, c.rt.queue, c.rt.message, receipt, queue.UpdateOptions{
		Text:              text,
		VisibilityTimeout: seconds(vt),
		NewID:             c.s.ids,
	})
	if err != nil {
		return err
	}
	c.resp.Status = 204
	c.resp.Header.Set("x-ms-popreceipt", m.PopReceipt)
	c.resp.Header.Set("x-ms-time-next-visible", httpDate(m.NextVisible))
	return nil
}

func (c *call) deleteMessage() error {
	if err := c.check(auth.Process, auth.ObjectLevel); err != nil {
		return err
	}
	receipt, err := c.popReceipt()
	if err != nil {
		return err
	}
	if err := c.s.svc.DeleteMessage(c.rt.account, c.rt.queue, c.rt.message, receipt); err != nil {
		return err
	}
	c.resp.Status = 204
	return nil
}

func (c *call) clearMessages() error {
	if err := c.check(auth.Delete, auth.ObjectLevel); err != nil {
		return err
	}
	if err := c.s.svc.Clear(c.rt.account, c.rt.queue); err != nil {
		return err
	}
	c.resp.Status = 204
	return nil
}
