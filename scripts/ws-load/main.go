// ws-load: the load driver of scripts/bench-ws. It keeps WebSocket connections open to one server and
// runs measured windows when told to on standard input, so a script can read the server's CPU time
// (scripts/lib/cpu.sh) around each window while several servers run at once.
//
//	ws-load -url ws://127.0.0.1:8080/ws/echo -conns 1000 -size 16 -type text
//	  stdin "echo SECONDS" -> every connection sends a message and waits for its echo, again and again,
//	                          for SECONDS; prints "messages N seconds S" (N echoes received)
//	ws-load -url ws://127.0.0.1:8080/ws/broadcast -conns 10000 -size 16
//	  stdin "broadcast COUNT" -> COUNT times: connection 0 sends one message, the driver waits until
//	                          every connection has received it; prints "broadcasts N p50_ms X p99_ms Y max_ms Z"
//	  stdin "quit" -> closes every connection (close 1000) and exits
//
// It prints "ready CONNS" once every connection is open. Compression is never offered. The payload
// is ASCII (valid UTF-8 for text frames).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	url := flag.String("url", "", "ws:// URL")
	conns := flag.Int("conns", 1000, "connections")
	size := flag.Int("size", 16, "payload bytes")
	kind := flag.String("type", "text", "text or binary")
	flag.Parse()
	if *url == "" {
		log.Fatal("-url is required")
	}
	msgType := websocket.TextMessage
	if *kind == "binary" {
		msgType = websocket.BinaryMessage
	}
	payload := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz", *size/26+1)[:*size])

	dialer := websocket.Dialer{
		NetDial:          func(network, addr string) (net.Conn, error) { return net.Dial(network, addr) },
		HandshakeTimeout: 30 * time.Second,
		ReadBufferSize:   8192,
		WriteBufferSize:  8192,
	}
	cs := make([]*websocket.Conn, *conns)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64) // at most 64 handshakes at once: the server's backlog is not the test
	for i := range cs {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			c, _, err := dialer.Dial(*url, nil)
			if err != nil {
				log.Fatalf("connection %d: %v", i, err)
			}
			cs[i] = c
		}(i)
	}
	wg.Wait()
	fmt.Printf("ready %d\n", len(cs))

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "echo":
			secs, _ := strconv.ParseFloat(f[1], 64)
			n := echo(cs, msgType, payload, time.Duration(secs*float64(time.Second)))
			fmt.Printf("messages %d seconds %g\n", n, secs)
		case "broadcast":
			count, _ := strconv.Atoi(f[1])
			lat := broadcast(cs, msgType, payload, count)
			sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			fmt.Printf("broadcasts %d p50_ms %.2f p99_ms %.2f max_ms %.2f\n", len(lat),
				ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), ms(lat[len(lat)-1]))
		case "quit":
			for _, c := range cs {
				c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""), time.Now().Add(time.Second))
				c.Close()
			}
			return
		}
	}
}

// echo runs one window: each connection sends and waits for its echo until the deadline; returns the
// echoes received before it.
func echo(cs []*websocket.Conn, msgType int, payload []byte, d time.Duration) int64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for _, c := range cs {
		wg.Add(1)
		go func(c *websocket.Conn) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if err := c.WriteMessage(msgType, payload); err != nil {
					log.Fatalf("write: %v", err)
				}
				t, m, err := c.ReadMessage()
				if err != nil || t != msgType || len(m) != len(payload) {
					log.Fatalf("read: %v (type %d, %d bytes)", err, t, len(m))
				}
				if time.Now().Before(deadline) {
					n.Add(1)
				}
			}
		}(c)
	}
	wg.Wait()
	return n.Load()
}

// broadcast: count times, connection 0 sends a message and every connection must receive it; returns
// each broadcast's time from the send to the last connection's receipt.
func broadcast(cs []*websocket.Conn, msgType int, payload []byte, count int) []time.Duration {
	lat := make([]time.Duration, 0, count)
	for r := 0; r < count; r++ {
		var wg sync.WaitGroup
		wg.Add(len(cs))
		for _, c := range cs {
			go func(c *websocket.Conn) {
				defer wg.Done()
				c.SetReadDeadline(time.Now().Add(60 * time.Second))
				t, m, err := c.ReadMessage()
				if err != nil || t != msgType || len(m) != len(payload) {
					log.Fatalf("broadcast read: %v (type %d, %d bytes)", err, t, len(m))
				}
			}(c)
		}
		start := time.Now()
		if err := cs[0].WriteMessage(msgType, payload); err != nil {
			log.Fatalf("broadcast write: %v", err)
		}
		wg.Wait()
		lat = append(lat, time.Since(start))
	}
	return lat
}
