// Go's sync.Pool on the workloads of the Rust suite (../README and
// ../RESULTS.md), for a comparison beside it. Run from this directory:
//
//	go test -bench . -benchmem -count 5 -cpu 1,2
//
// scripts/bench_table.py runs this when `go` is installed and puts the
// medians beside the Rust contenders. Each workload has a sync.Pool variant
// (reset like the Rust side: buf = buf[:0], Reset()) and a plain allocation
// per op; Obj also has b.RunParallel variants (ns/op = wall time / all ops,
// as in the Rust persistent-thread harness).
package bench

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"testing"
)

// Plain allocations are stored in a sink so that escape analysis cannot put
// them on the stack (the Rust side hands them to black_box). Typed fields,
// since storing a slice in an `any` would allocate its header; one padded
// slot per goroutine, so that parallel goroutines do not share a cache line.
type sinkSlot struct {
	obj *Obj
	buf []byte
	bb  *bytes.Buffer
	_   [24]byte
}

var (
	sinks    [64]sinkSlot
	nextSink atomic.Int32
)

// sink returns a slot of its own to each caller.
func sink() *sinkSlot {
	return &sinks[int(nextSink.Add(1))%len(sinks)]
}

// ------------------------------------------------------------ workload 0

// Obj is the headline type: #[derive(Poolable, Default)] struct Obj { buf: Vec<u8> }.
type Obj struct{ buf []byte }

// Reset is what the derive generates: the Vec is cleared, its capacity kept.
func (o *Obj) Reset() { o.buf = o.buf[:0] }

var objPool = sync.Pool{New: func() any { return new(Obj) }}

// objOp is one get, push one byte, put.
func objOp(i int) {
	o := objPool.Get().(*Obj)
	o.buf = append(o.buf, byte(i))
	o.Reset()
	objPool.Put(o)
}

func BenchmarkObj(b *testing.B) {
	b.Run("pool", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			objOp(i)
		}
	})
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		s := sink()
		for i := 0; b.Loop(); i++ {
			o := new(Obj)
			o.buf = append(o.buf, byte(i))
			s.obj = o
		}
	})
	b.Run("pool-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				objOp(i)
			}
		})
	})
	b.Run("new-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			s := sink()
			for i := 0; pb.Next(); i++ {
				o := new(Obj)
				o.buf = append(o.buf, byte(i))
				s.obj = o
			}
		})
	})
}

// ------------------------------------------------------------ workload 2

const scratchLen = 2048

// touch writes every 64th byte (one per cache line), as work::touch.
func touch(buf []byte, i int) {
	for j := 0; j < len(buf); j += 64 {
		buf[j] += byte(i)
	}
}

var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

func BenchmarkScratch2K(b *testing.B) {
	b.Run("pool", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			p := scratchPool.Get().(*[]byte)
			// Vec::resize(2048, 0) on a cleared buffer: zero-filled, 2 KiB long.
			buf := append((*p)[:0], make([]byte, scratchLen)...)
			touch(buf, i)
			*p = buf[:0]
			scratchPool.Put(p)
		}
	})
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		s := sink()
		for i := 0; b.Loop(); i++ {
			buf := make([]byte, scratchLen)
			touch(buf, i)
			s.buf = buf
		}
	})
}

// ------------------------------------------------------------ workload 3

var builderPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// build writes "12345678" 512 times (4 KiB).
func build(buf *bytes.Buffer) {
	for range 512 {
		buf.WriteString("12345678")
	}
}

func BenchmarkBuilder4K(b *testing.B) {
	b.Run("pool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf := builderPool.Get().(*bytes.Buffer)
			build(buf)
			buf.Reset()
			builderPool.Put(buf)
		}
	})
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		s := sink()
		for b.Loop() {
			buf := new(bytes.Buffer)
			build(buf)
			s.bb = buf
		}
	})
}

// ------------------------------------------------------------ workload 4

// maxRecordCap is the Rust suite's size cap (poolable's default, 64 KiB):
// bigger buffers are not put back, as fmt does with its printers.
const maxRecordCap = 64 << 10

var payload = bytes.Repeat([]byte{'x'}, 1024)

var recordPool = sync.Pool{New: func() any { return new([]byte) }}

// encode appends "data=<1 KiB>\n" and writes it to io.Discard.
func encode(buf []byte) []byte {
	buf = append(buf, "data="...)
	buf = append(buf, payload...)
	buf = append(buf, '\n')
	if _, err := io.Discard.Write(buf); err != nil {
		panic(err)
	}
	return buf
}

func BenchmarkRecordEncode(b *testing.B) {
	b.Run("pool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := recordPool.Get().(*[]byte)
			buf := encode((*p)[:0])
			if cap(buf) <= maxRecordCap {
				*p = buf[:0]
				recordPool.Put(p)
			}
		}
	})
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		s := sink()
		for b.Loop() {
			s.buf = encode(nil)
		}
	})
}
