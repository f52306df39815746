package main

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	_ "golang.org/x/image/webp"

	"steerable.dev/sidecar/internal/mediatest"
)

// cmdMedia writes a generated image or PDF into the script's work
// directory (testscript archives hold text, these are binary):
//
//	media png|jpeg W H FILE     a smooth gradient
//	media gif FILE              two frames, red then blue
//	media webp FILE             a 64×48 lossy WebP
//	media bomb FILE             a PNG declaring 60000×60000 pixels
//	media corrupt FILE          a PNG cut in half
//	media pdf N FILE [SCANNED]  N pages of text; SCANNED lists image-only pages (2,5)
//	media pdf-encrypted FILE    two pages, a user password
//	media pdf-malformed FILE    a PDF cut in half
func cmdMedia(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: media KIND [ARGS] FILE")
	}
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		ts.Check(err)
		return n
	}
	var b []byte
	file := args[len(args)-1]
	switch args[0] {
	case "png", "jpeg":
		img := mediatest.Gradient(num(args[1]), num(args[2]))
		if b = mediatest.PNG(img); args[0] == "jpeg" {
			b = mediatest.JPEG(img)
		}
	case "gif":
		b = mediatest.AnimatedGIF()
	case "webp":
		b = mediatest.WebP
	case "bomb":
		b = mediatest.PNGBomb(60000, 60000)
	case "corrupt":
		good := mediatest.PNG(mediatest.Gradient(200, 100))
		b = good[:len(good)/2]
	case "pdf":
		o := mediatest.PDFOptions{Pages: num(args[1]), Scanned: map[int]bool{}}
		if len(args) == 4 {
			file = args[2]
			for _, p := range strings.Split(args[3], ",") {
				o.Scanned[num(p)] = true
			}
		}
		b = mediatest.PDF(o)
	case "pdf-encrypted":
		b = mediatest.PDF(mediatest.PDFOptions{Pages: 2, UserPassword: "secret", OwnerPassword: "owner"})
	case "pdf-malformed":
		good := mediatest.PDF(mediatest.PDFOptions{Pages: 3})
		b = good[:len(good)/2]
	default:
		ts.Fatalf("media: unknown kind %q", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(file), b, 0o644))
}

// lastContent is the content blocks of the last reply (the stdout of the
// last rpc).
func lastContent(ts *testscript.TestScript) []contentBlock {
	lines := strings.Split(strings.TrimSpace(ts.ReadFile("stdout")), "\n")
	var reply struct {
		Result struct {
			Content []contentBlock `json:"content"`
		} `json:"result"`
	}
	ts.Check(json.Unmarshal([]byte(lines[len(lines)-1]), &reply))
	return reply.Result.Content
}

type contentBlock struct {
	Type, MimeType string
	Data           []byte
}

// cmdBlockFile writes the data of the last reply's first block of TYPE to
// FILE.
//
//	block-file TYPE FILE
func cmdBlockFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: block-file TYPE FILE")
	}
	for _, c := range lastContent(ts) {
		if c.Type == args[0] {
			ts.Check(os.WriteFile(ts.MkAbs(args[1]), c.Data, 0o644))
			return
		}
	}
	ts.Fatalf("the last reply has no %s block", args[0])
}

// cmdImageBlock checks the image block of the last reply (the stdout of
// the last rpc): it decodes as MIME at W×H pixels.
//
//	image-block MIME W H
func cmdImageBlock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: image-block MIME W H")
	}
	for _, c := range lastContent(ts) {
		if c.Type != "image" {
			continue
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(c.Data))
		ts.Check(err)
		if got := []string{c.MimeType, "image/" + format, strconv.Itoa(cfg.Width), strconv.Itoa(cfg.Height)}; got[0] != args[0] || got[1] != args[0] || got[2] != args[1] || got[3] != args[2] {
			ts.Fatalf("image block %v, want %v", got, args)
		}
		return
	}
	ts.Fatalf("the last reply has no image block")
}
