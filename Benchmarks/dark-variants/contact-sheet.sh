#!/usr/bin/env bash
# The dark-variant contact sheet of issue 20: generated banners of every kind
# (text on white, a brand card, a UI card, line art, display type, a dark
# banner, a photo with a caption bar, a split layout, a dark ribbon, a pastel
# ground, a low-quality JPEG price card, flat art, a captioned GIF, a promo
# clip, a gradient, a white card on a gradient page, a white card on a brand-blue page, a warm wash, a vignette, a mug composited on a gradient, a
# product shot pasted on a grey page, a red badge, a shaded navy product, a settings screenshot, a card with a drop shadow, a white card on a
# blue-to-pink page, an overexposed photo, light grey product tiles, pastel category tiles, a chat screen, a frosted card on transparency, touching pastel tiles) and the corpus's still images, built by Marquee, then drawn light |
# dark by `marquee preview`.
#
#   Benchmarks/dark-variants/contact-sheet.sh [MARQUEE] [WORKDIR]
#
# MARQUEE defaults to .build/release/marquee, WORKDIR to a new temporary
# folder; the sheet is WORKDIR/preview/preview-contact-sheet.png.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MARQUEE="$(realpath "${1:-$ROOT/.build/release/marquee}")"
WORK="${2:-$(mktemp -d)}"
mkdir -p "$WORK" && cd "$WORK"
F=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
C="$ROOT/../shared/corpus"
ff() { ffmpeg -v error -y "$@"; }
ff -f lavfi -i color=white:s=1170x658 -i $C/image-jpeg-product-white-mug-on-white-1000.jpg -filter_complex "[1]scale=500:500[m];[0][m]overlay=640:100,drawtext=fontfile=$F:text='SALE':fontsize=150:fontcolor=0x111111:x=60:y=80,drawtext=fontfile=$F:expansion=none:text='50% OFF':fontsize=90:fontcolor=0xE53935:x=60:y=280,drawtext=fontfile=$F:text='Today only':fontsize=48:fontcolor=0x222222:x=60:y=440" -frames:v 1 sale.png
ff -f lavfi -i "color=0xFFD400:s=1170x658,drawtext=fontfile=$F:text='MEGA DEAL':fontsize=130:fontcolor=black:x=60:y=120,drawtext=fontfile=$F:expansion=none:text='Up to 70% off':fontsize=56:fontcolor=black:x=60:y=330" -frames:v 1 brand.png
ff -f lavfi -i "color=0xF2F2F7:s=1170x658,drawbox=x=120:y=80:w=930:h=500:color=white:t=fill,drawtext=fontfile=$F:text='Your order is on its way':fontsize=52:fontcolor=0x1C1C1E:x=170:y=140,drawtext=fontfile=$F:text='Arrives Tuesday':fontsize=36:fontcolor=0x6E6E73:x=170:y=240" -frames:v 1 card.png
ff -f lavfi -i "color=white:s=1600x1000,format=gray,geq=lum='if(lt(abs(hypot(X-500\,Y-500)-300)\,1.5)+lt(abs(X-1100)\,1.2)*between(Y\,200\,800)+lt(abs(Y-800)\,1.2)*between(X\,1100\,1500)\,0\,255)',format=rgb24,drawtext=fontfile=$F:text='Fig. 3  Valve assembly':fontsize=40:fontcolor=black:x=300:y=900" -frames:v 1 lineart.png
ff -f lavfi -i "color=white:s=1170x658,drawtext=fontfile=$F:text='SALE':fontsize=300:fontcolor=0x111111:x=40:y=120" -frames:v 1 headline.png
ff -f lavfi -i "color=0x0B1D3A:s=1170x658,drawtext=fontfile=$F:text='Night Sale':fontsize=120:fontcolor=white:x=60:y=150,drawtext=fontfile=$F:text='Starts 10 pm':fontsize=60:fontcolor=0xFFC107:x=60:y=330" -frames:v 1 night.png
ff -f lavfi -i "testsrc2=s=1170x658,noise=alls=12:allf=t,gblur=sigma=1.5,drawbox=x=0:y=500:w=1170:h=158:color=white:t=fill,drawtext=fontfile=$F:text='Weekend in the hills':fontsize=64:fontcolor=0x111111:x=40:y=545" -frames:v 1 captionbar.png
ff -f lavfi -i "color=white:s=1170x658,format=rgb24,geq=r='255-34*Y/H':g='255-28*Y/H':b='255-19*Y/H',drawtext=fontfile=$F:text='SALE':fontsize=150:fontcolor=0x111111:x=60:y=80,drawtext=fontfile=$F:expansion=none:text='50% OFF':fontsize=90:fontcolor=0xE53935:x=60:y=280" -frames:v 1 gradient.png
ff -f lavfi -i "color=white:s=1170x658,format=rgb24,geq=r='245-30*Y/H':g='245-24*Y/H':b='250-10*Y/H',drawbox=x=100:y=80:w=970:h=500:color=white:t=fill,drawtext=fontfile=$F:text='Spring drop':fontsize=90:fontcolor=0x222222:x=160:y=160,drawtext=fontfile=$F:text='New colours in store':fontsize=48:fontcolor=0x3A3A3C:x=160:y=320" -frames:v 1 gradientcard.png
ff -f lavfi -i "color=0x2E6BE6:s=1170x658,drawbox=x=185:y=100:w=800:h=458:color=white:t=fill,drawbox=x=235:y=400:w=300:h=90:color=0x2E6BE6:t=fill,drawtext=fontfile=$F:text='Your order shipped':fontsize=56:fontcolor=0x111111:x=235:y=160,drawtext=fontfile=$F:text='Arrives Thursday':fontsize=36:fontcolor=0x444444:x=235:y=260" -frames:v 1 bluecard.png
ff -f lavfi -i "color=white:s=1170x658,format=rgb24,geq=r='255':g='247-23*(X/W+Y/H)/2':b='230-52*(X/W+Y/H)/2',drawtext=fontfile=$F:text='Autumn offers':fontsize=110:fontcolor=0x3E2723:x=60:y=150" -frames:v 1 warmwash.png
ff -f lavfi -i "color=white:s=1170x658,format=rgb24,geq=r='255-40*hypot(X-W/2\,Y-H/2)/hypot(W/2\,H/2)':g='255-40*hypot(X-W/2\,Y-H/2)/hypot(W/2\,H/2)':b='255-34*hypot(X-W/2\,Y-H/2)/hypot(W/2\,H/2)',drawtext=fontfile=$F:text='Big weekend':fontsize=120:fontcolor=0x1A1A1A:x=60:y=150,drawtext=fontfile=$F:text='All shoes -20':fontsize=60:fontcolor=0x1565C0:x=60:y=330" -frames:v 1 vignette.png
ff -f lavfi -i "color=white:s=1170x658,format=rgb24,geq=r='255-30*Y/H':g='255-24*Y/H':b='255-10*Y/H'" -i $C/image-jpeg-product-white-mug-on-white-1000.jpg -filter_complex "[1]scale=480:480,format=rgb24,pad=1170:658:650:120:white[m];[0]format=rgb24[g];[g][m]blend=all_mode=multiply,drawtext=fontfile=$F:text='Mug':fontsize=130:fontcolor=0x111111:x=60:y=150" -frames:v 1 gradmug.png
ff -f lavfi -i color=0xEEEEEE:s=1170x658 -i $C/image-jpeg-product-white-mug-on-white-1000.jpg -filter_complex "[1]scale=500:500[m];[0][m]overlay=640:100,drawtext=fontfile=$F:text='Mugs':fontsize=130:fontcolor=0x111111:x=60:y=120" -frames:v 1 inset.png
ff -f lavfi -i "color=white:s=1170x658,drawbox=x=700:y=150:w=380:h=160:color=0xE53935:t=fill,drawtext=fontfile=$F:expansion=none:text='-40%':fontsize=110:fontcolor=white:x=730:y=170,drawtext=fontfile=$F:text='Winter sale':fontsize=100:fontcolor=0x111111:x=60:y=400" -frames:v 1 badge.png
ff -f lavfi -i "color=white:s=1170x658,format=rgb24,geq=r='if(lt(hypot(X-850\,Y-330)\,200)\,20+30*(X-650)/400\,r(X\,Y))':g='if(lt(hypot(X-850\,Y-330)\,200)\,30+30*(X-650)/400\,g(X\,Y))':b='if(lt(hypot(X-850\,Y-330)\,200)\,80+50*(X-650)/400\,b(X\,Y))',drawtext=fontfile=$F:text='Navy mug':fontsize=100:fontcolor=0x111111:x=60:y=120" -frames:v 1 navydisc.png
ff -i $C/image-jpeg-progressive-photo-pixel7pro-srgb.jpg -vf "scale=585:658:force_original_aspect_ratio=increase,crop=585:658,pad=1170:658:0:0:white,drawtext=fontfile=$F:text='New season':fontsize=64:fontcolor=0x111111:x=640:y=200,drawtext=fontfile=$F:text='Shop now':fontsize=40:fontcolor=0xE53935:x=640:y=320" -frames:v 1 split.png
ff -f lavfi -i "color=white:s=1170x658,drawbox=x=0:y=300:w=1170:h=140:color=0x111111:t=fill,drawbox=x=60:y=500:w=140:h=80:color=black:t=fill,drawbox=x=300:y=540:w=800:h=3:color=black:t=fill,drawtext=fontfile=$F:text='B8 Winter':fontsize=110:fontcolor=0x111111:x=60:y=90,drawtext=fontfile=$F:expansion=none:text='NEW ARRIVALS 30% OFF':fontsize=70:fontcolor=white:x=60:y=335,drawtext=fontfile=$F:text='NEW':fontsize=40:fontcolor=white:x=85:y=522" -frames:v 1 ribbon.png
ff -f lavfi -i "color=0xFADADD:s=1170x658,drawtext=fontfile=$F:text='Spring pastels':fontsize=90:fontcolor=0x3A2A2E:x=60:y=120" -frames:v 1 pastel.png
ff -f lavfi -i color=white:s=1170x658 -i $C/image-jpeg-product-white-mug-on-white-1000.jpg -filter_complex "[1]scale=500:500[m];[0][m]overlay=600:80,drawtext=fontfile=$F:text='Mug':fontsize=120:fontcolor=0x111111:x=60:y=120,drawtext=fontfile=$F:expansion=none:text='\$12.99':fontsize=90:fontcolor=0xE53935:x=60:y=320" -frames:v 1 -q:v 14 pricejpeg.jpg
ff -f lavfi -i color=white:s=1170x658 -vf "drawbox=x=100:y=100:w=300:h=300:color=0x4CAF50:t=fill,drawbox=x=100:y=100:w=300:h=300:color=black:t=6,drawbox=x=500:y=200:w=200:h=350:color=0xFF9800:t=fill,drawbox=x=500:y=200:w=200:h=350:color=black:t=6,drawtext=fontfile=$F:text='Fun pack':fontsize=80:fontcolor=black:x=760:y=280" -frames:v 1 cartoon.png
ff -f lavfi -i "color=0xF2F2F7:s=1170x658,drawbox=x=0:y=0:w=1170:h=110:color=white:t=fill,drawbox=x=0:y=109:w=1170:h=1:color=0xC6C6C8:t=fill,drawtext=fontfile=$F:text='Settings':fontsize=44:fontcolor=black:x=480:y=35,drawbox=x=40:y=160:w=1090:h=420:color=white:t=fill,drawbox=x=70:y=190:w=60:h=60:color=0x34C759:t=fill,drawbox=x=70:y=330:w=60:h=60:color=0x007AFF:t=fill,drawbox=x=70:y=470:w=60:h=60:color=0xFF9500:t=fill,drawtext=fontfile=$F:text='Wi-Fi':fontsize=38:fontcolor=black:x=160:y=200,drawtext=fontfile=$F:text='Bluetooth':fontsize=38:fontcolor=black:x=160:y=340,drawtext=fontfile=$F:text='Notifications':fontsize=38:fontcolor=black:x=160:y=480,drawbox=x=160:y=300:w=970:h=1:color=0xC6C6C8:t=fill,drawbox=x=160:y=440:w=970:h=1:color=0xC6C6C8:t=fill" -frames:v 1 settings.png
ff -f lavfi -i "color=0xF5F5F5:s=1170x658,drawbox=x=150:y=110:w=880:h=460:color=0x999999:t=fill,gblur=sigma=18,drawbox=x=135:y=90:w=880:h=460:color=white:t=fill,drawtext=fontfile=$F:text='Free delivery':fontsize=80:fontcolor=0x1C1C1E:x=190:y=180,drawtext=fontfile=$F:text='On orders over 30':fontsize=44:fontcolor=0x555555:x=190:y=320" -frames:v 1 shadowcard.png
ff -f lavfi -i "color=white:s=1170x658,format=rgb24,geq=r='225+30*X/W':g='235-10*X/W':b='255-20*X/W',drawbox=x=135:y=100:w=900:h=458:color=white:t=fill,drawtext=fontfile=$F:text='Join the club':fontsize=84:fontcolor=0x222222:x=190:y=190,drawtext=fontfile=$F:text='Members save 10 percent':fontsize=44:fontcolor=0x555555:x=190:y=330" -frames:v 1 pinkcard.png
ff -i $C/image-jpeg-progressive-photo-pixel7pro-srgb.jpg -vf "scale=1170:658:force_original_aspect_ratio=increase,crop=1170:658,eq=brightness=0.35:contrast=0.8" -frames:v 1 overexposed.jpg
ff -f lavfi -i "color=white:s=1170x658,drawbox=x=40:y=110:w=340:h=500:color=0xF2F2F2:t=fill,drawbox=x=415:y=110:w=340:h=500:color=0xF2F2F2:t=fill,drawbox=x=790:y=110:w=340:h=500:color=0xF2F2F2:t=fill,format=rgb24,geq=r='if(lt(hypot(X-210\,Y-250)\,90)\,230-90*hypot(X-180\,Y-220)/130\,r(X\,Y))':g='if(lt(hypot(X-210\,Y-250)\,90)\,70-40*hypot(X-180\,Y-220)/130\,g(X\,Y))':b='if(lt(hypot(X-210\,Y-250)\,90)\,50-20*hypot(X-180\,Y-220)/130\,b(X\,Y))',drawtext=fontfile=$F:text='Trending now':fontsize=44:fontcolor=0x111111:x=40:y=40,drawtext=fontfile=$F:expansion=none:text='\$24.99':fontsize=40:fontcolor=0x111111:x=70:y=520,drawtext=fontfile=$F:expansion=none:text='\$89.00':fontsize=40:fontcolor=0x111111:x=445:y=520,drawtext=fontfile=$F:expansion=none:text='\$59.50':fontsize=40:fontcolor=0x111111:x=820:y=520" -frames:v 1 tiles.png
ff -f lavfi -i "color=white:s=1170x658,drawbox=x=60:y=120:w=320:h=420:color=0xFFE5D6:t=fill,drawbox=x=425:y=120:w=320:h=420:color=0xDFF5E8:t=fill,drawbox=x=790:y=120:w=320:h=420:color=0xE3ECFF:t=fill,drawtext=fontfile=$F:text='Fruit':fontsize=50:fontcolor=0x111111:x=100:y=440,drawtext=fontfile=$F:text='Veg':fontsize=50:fontcolor=0x111111:x=465:y=440,drawtext=fontfile=$F:text='Dairy':fontsize=50:fontcolor=0x111111:x=830:y=440" -frames:v 1 pasteltiles.png
ff -f lavfi -i "color=white:s=1170x658,drawbox=x=40:y=100:w=600:h=110:color=0xE9E9EB:t=fill,drawbox=x=500:y=260:w=630:h=110:color=0x0A84FF:t=fill,drawbox=x=40:y=420:w=500:h=110:color=0xE9E9EB:t=fill,drawtext=fontfile=$F:text='Where is my order?':fontsize=40:fontcolor=0x111111:x=70:y=135,drawtext=fontfile=$F:text='It ships today':fontsize=40:fontcolor=white:x=530:y=295,drawtext=fontfile=$F:text='Great, thanks':fontsize=40:fontcolor=0x111111:x=70:y=455" -frames:v 1 chat.png
ff -f lavfi -i "color=white:s=1170x658,drawtext=fontfile=$F:text='Members save 20':fontsize=48:fontcolor=0x111111:x=360:y=270,format=rgba,geq=r='r(X\,Y)':g='g(X\,Y)':b='b(X\,Y)':a='200*between(X\,300\,849)*between(Y\,120\,519)'" -frames:v 1 frostedcard.png
ff -f lavfi -i "color=0xFED5DE:s=1170x658,drawbox=x=585:y=0:w=585:h=329:color=0xD5F3FE:t=fill,drawbox=x=0:y=329:w=585:h=329:color=0xE0F5D5:t=fill,drawbox=x=585:y=329:w=585:h=329:color=0xFFF0C8:t=fill,drawtext=fontfile=$F:text='Yoga':fontsize=60:fontcolor=0x111111:x=60:y=120,drawtext=fontfile=$F:text='Swim':fontsize=60:fontcolor=0x111111:x=650:y=120,drawtext=fontfile=$F:text='Run 5k':fontsize=60:fontcolor=0x111111:x=60:y=450,drawtext=fontfile=$F:text='Rest day':fontsize=60:fontcolor=0x111111:x=650:y=450" -frames:v 1 pastelrow.png
# Display type set in one grey (a 30 % black SALE; a mid-grey HELLO beside a grey icon tile with a white S).
ff -f lavfi -i "color=white:s=1170x658,drawtext=fontfile=$F:text='SALE':fontsize=330:fontcolor=0xBBBBBB:x=90:y=100,drawtext=fontfile=$F:text='this weekend only':fontsize=44:fontcolor=0x1A1A2E:x=380:y=540" -frames:v 1 greysale.png
ff -f lavfi -i "color=white:s=1170x658,drawbox=x=60:y=470:w=160:h=160:color=0x8E8E93:t=fill,drawtext=fontfile=$F:text='HELLO':fontsize=300:fontcolor=0x8E8E8E:x=45:y=70,drawtext=fontfile=$F:text='S':fontsize=120:fontcolor=white:x=100:y=490,drawtext=fontfile=$F:text='Say it in grey':fontsize=44:fontcolor=0x1A1A2E:x=300:y=540" -frames:v 1 greyhello.png
ff -f lavfi -i "testsrc2=s=480x270:r=10:d=1" -filter_complex "[0]eq=brightness=-0.25,pad=480:340:0:0:white,drawtext=fontfile=$F:text='Coffee time':fontsize=30:fontcolor=black:x=40:y=290,split[a][b];[a]palettegen[p];[b][p]paletteuse" caption.gif
ff -f lavfi -i "color=white:s=640x360:r=25:d=4,drawtext=fontfile=$F:text='Spring collection':fontsize=56:fontcolor=0x111111:x=40:y=120" -c:v libx264 -pix_fmt yuv420p promo.mp4
for f in image-jpeg-adobergb1998-photo-2000x1072.jpg image-jpeg-product-white-mug-on-white-1000.jpg image-jpeg-progressive-photo-pixel7pro-srgb.jpg image-jpeg-exif-orientation-6.jpg image-jpeg-cmyk-ycck-swop-icc.jpg image-jpeg-grayscale-1ch-gray-gamma22-icc.jpg image-heic-iphone11promax-displayp3-grid-2566x3313.heic image-png-black-ink-on-transparent-2048x1536.png image-png-palette-2bit-trns-semitransparent-900x600.png image-png-product-cutout-transparent-shadow-2160.png image-webp-lossless-vp8l-alpha-tux-386x395.webp image-webp-lossy-alpha-icon-192.webp image-gif-animated-30f-transparent-disposal2.gif image-webp-animated-lossless-alpha-42f.webp image-jpeg-ultrahdr-gainmap-3072x4080.jpg; do cp $C/$f corpus-$f; done

python3 - <<'PY'
import os, json
items = []
for f in sorted(os.listdir('.')):
    if f.endswith(('.png', '.jpg', '.gif', '.webp', '.heic', '.mp4')):
        ident = os.path.splitext(f)[0].replace('corpus-image-', 'c-')[:40].replace('.', '-')
        item = {"id": ident, "type": "video" if f.endswith('.mp4') else "image", "source": f}
        if f.endswith('.mp4'):
            item["cover"] = "first"
        items.append(item)
json.dump({"name": "sheet", "banners": items}, open('job.json', 'w'), indent=1)
PY
"$MARQUEE" build job.json --out out --log-format plain 2>&1 | grep -E "dark:|error" || true
"$MARQUEE" preview out/sheet --out preview
echo "$WORK/preview/preview-contact-sheet.png"
